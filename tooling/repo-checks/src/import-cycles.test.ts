import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cyclePath, importCycles, importGraph, resolveRelative, type ImportGraph } from './import-cycles.js';
import { rel, repoRoot, sourceFiles } from './workspace.js';

// Every workspace package, private tooling included: a circle is as hard to read there.
function packageDirs(): string[] {
  const out: string[] = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const groupDir = join(repoRoot, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir).sort()) {
      if (existsSync(join(groupDir, entry, 'package.json'))) out.push(join(groupDir, entry));
    }
  }
  return out;
}

function graphOf(edges: Record<string, string[]>): ImportGraph {
  return new Map(Object.entries(edges));
}

describe('no import circles between files', () => {
  it.each(packageDirs().map((dir) => [rel(dir), dir] as const))('%s', (_name, dir) => {
    const graph = importGraph(sourceFiles(dir));
    const circles = importCycles(graph).map((component) => cyclePath(graph, component, component[0]!).map(rel).join(' → '));
    expect(circles, 'break each circle, e.g. by moving the shared types into a file of their own').toEqual([]);
  });
});

describe('importCycles', () => {
  it('finds every strongly connected component, and self-imports', () => {
    const graph = graphOf({ a: ['b'], b: ['c'], c: ['a', 'd'], d: ['e'], e: ['d'], f: ['f'], g: ['a'], h: [] });
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['d', 'e'], ['f']]);
  });

  it('finds none in a graph without circles, however deep', () => {
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < 50_000; i++) edges[`n${i}`] = i + 1 < 50_000 ? [`n${i + 1}`] : [];
    expect(importCycles(graphOf(edges))).toEqual([]);
  });

  it('names one concrete circle for the message', () => {
    const graph = graphOf({ a: ['x', 'b'], b: ['c'], c: ['a'], x: [] });
    expect(cyclePath(graph, ['a', 'b', 'c'], 'a')).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('importGraph', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    return file;
  };

  it('follows value, type-only, re-export, dynamic and folder imports; ignores packages', () => {
    const a = write('a.ts', "import { b } from './b.js';\nimport type {\n  C,\n} from './sub/c.js';\nexport * from './d.mjs';\nimport 'node:fs';\nimport { z } from 'zod';\n");
    const b = write('b.ts', "export const b = async () => import('./sub/index.js');\n");
    const c = write('sub/c.ts', "import type { A } from '../a.js';\nexport type C = A;\n");
    const d = write('d.mts', "export const d = 1;\n");
    const index = write('sub/index.ts', "export type { C } from './c.js';\n");
    const graph = importGraph([a, b, c, d, index]);
    expect(graph.get(a)).toEqual([b, d, c].sort());
    expect(graph.get(b)).toEqual([index]);
    // a → b → sub/index → sub/c → a, and a → sub/c → a: one component.
    expect(importCycles(graph)).toEqual([[a, b, c, index].sort()]);
  });

  it('resolves NodeNext specifiers to the TypeScript file', () => {
    const e = write('e.ts', '');
    const m = write('m.mts', '');
    expect(resolveRelative(join(dir, 'x.ts'), './e.js')).toBe(e);
    expect(resolveRelative(join(dir, 'x.ts'), './m.mjs')).toBe(m);
    expect(resolveRelative(join(dir, 'x.ts'), './missing.js')).toBeUndefined();
  });
});
