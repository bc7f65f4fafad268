// The published entries as a bundler for a Worker, an edge function or a page sees them: every
// module the main entry and its /anthropic, /responses and /dialect subpaths reach imports no
// node:* module and uses no createRequire; only /node (the file store) may.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '..');

/** Every source file `entry` reaches through relative imports (static and dynamic), with the bare specifiers they name. */
function reach(entry: string): { files: string[]; bare: Set<string>; createRequire: string[] } {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const createRequire: string[] = [];
  const todo = [resolve(root, entry)];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    // Code only: a comment may name what the entry avoids.
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    if (/createRequire|\brequire\(/.test(code)) createRequire.push(file);
    for (const m of code.matchAll(/(?:^|\s)(?:import|export)\s(?:type\s)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)) {
      if (m[0].trimStart().startsWith('import type') || m[0].trimStart().startsWith('export type')) continue;
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  }
  return { files: [...seen], bare, createRequire };
}

const entries = Object.entries(manifest.exports).map(([subpath, conditions]) => ({ subpath, source: conditions.source }));

describe('the entries', () => {
  it('are ., ./anthropic, ./responses, ./dialect and ./node', () => {
    expect(entries.map((e) => e.subpath)).toEqual(['.', './anthropic', './responses', './dialect', './node']);
  });

  for (const { subpath, source } of entries.filter((e) => e.subpath !== './node')) {
    it(`${subpath} reaches no node:* module and no createRequire (runs in Workers, edge functions, browsers)`, () => {
      const { files, bare, createRequire } = reach(source);
      expect(files.length).toBeGreaterThan(subpath === '.' ? 60 : 1);
      expect([...bare].filter((s) => s.startsWith('node:') || !s.startsWith('@nanobot/'))).toEqual([]);
      expect(createRequire).toEqual([]);
    });
  }

  it('./node holds the file store, which does use node:fs', async () => {
    const { bare } = reach(join('src', 'node.ts'));
    expect(bare.has('node:fs')).toBe(true);
    const node = await import('./node.js');
    const main = await import('./index.js');
    expect(Object.keys(node)).toEqual(['FileArtifactStore']);
    expect('FileArtifactStore' in main).toBe(false);
    expect(typeof main.MemoryArtifactStore).toBe('function');
  });
});
