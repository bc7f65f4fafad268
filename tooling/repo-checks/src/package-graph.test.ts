import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, internalDeps, listPackages, rel, sourceFiles } from './workspace.js';

// Layers from ../shared/design/ARCHITECTURE.md: a package may depend only on lower layers,
// which also rules out cycles.
const layer: Record<string, number> = {
  '@nanobot/schema': 0,
  '@nanobot/tools-core': 1,
  '@nanobot/governor': 1,
  '@nanobot/registry': 2,
  '@nanobot/context-builder': 2,
  '@nanobot/providers': 2,
  // The governor in other libraries' message formats: governor (+ schema types) and a peer only.
  '@nanobot/ai-sdk': 2,
  '@nanobot/langchain': 2,
  '@nanobot/tools': 3,
  '@nanobot/mcp': 3,
  '@nanobot/session': 3,
  '@nanobot/runner': 4,
  '@nanobot/postgres': 5,
  '@nanobot/cli': 6,
  '@nanobot/web': 6,
};

const packages = listPackages();
const byName = new Map(packages.map((p) => [p.name, p]));
const SDKS = ['openai', '@anthropic-ai/sdk'];

describe('package graph', () => {
  it('knows every workspace package', () => {
    expect(packages.map((p) => p.name).sort()).toEqual(Object.keys(layer).sort());
  });

  it.each(packages.map((p) => [p.name, p] as const))('%s depends only on lower layers', (name, pkg) => {
    for (const dep of internalDeps(pkg)) {
      expect(layer[dep], `${name} → ${dep}`).toBeDefined();
      expect(layer[dep]!, `${name} → ${dep} points up or sideways`).toBeLessThan(layer[name]!);
    }
  });

  it('keeps the governor installable alone: it depends on @nanobot/schema only', () => {
    const governor = byName.get('@nanobot/governor')!;
    expect(internalDeps(governor)).toEqual(['@nanobot/schema']);
    const external = Object.keys(governor.manifest.dependencies ?? {}).filter((d) => !d.startsWith('@nanobot/'));
    expect(external).toEqual([]);
  });

  it.each([
    ['@nanobot/ai-sdk', ['ai']],
    ['@nanobot/langchain', ['@langchain/core', 'langchain']],
  ] as const)('%s depends on the governor (+ schema) and its peer library only', (name, peers) => {
    const pkg = byName.get(name)!;
    expect(internalDeps(pkg).filter((d) => d !== '@nanobot/schema')).toEqual(['@nanobot/governor']);
    const external = Object.keys(pkg.manifest.dependencies ?? {}).filter((d) => !d.startsWith('@nanobot/'));
    expect(external).toEqual([]);
    expect(Object.keys((pkg.manifest as { peerDependencies?: Record<string, string> }).peerDependencies ?? {}).sort()).toEqual([...peers].sort());
  });

  it('has no cycles', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, path: string[]): void => {
      if (done.has(name)) return;
      if (visiting.has(name)) throw new Error(`cycle: ${[...path, name].join(' → ')}`);
      visiting.add(name);
      for (const dep of internalDeps(byName.get(name)!)) visit(dep, [...path, name]);
      visiting.delete(name);
      done.add(name);
    };
    for (const p of packages) visit(p.name, []);
    expect(done.size).toBe(packages.length);
  });

  it.each(packages.map((p) => [p.name, p] as const))('%s exports only entry points with a source condition and an import build', (_name, pkg) => {
    for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
      expect(typeof target, subpath).toBe('object');
      const { node, ...t } = target as Record<string, unknown>;
      // A leading `node` condition (a Node-only build of the same entry) has the same shape.
      if (node !== undefined) {
        expect(Object.keys(node as object).sort(), `${subpath} node`).toEqual(['import', 'require', 'source']);
        expect(existsSync(join(pkg.dir, (node as { source: string }).source)), `${pkg.name} ${subpath} node source`).toBe(true);
      }
      // Published packages add `require` (their CommonJS build), with each condition's own
      // `types` (manifest-problems.ts); the private apps are ESM only: `types` beside `import`.
      const expected = pkg.manifest.private === true ? ['import', 'source', 'types'] : ['import', 'require', 'source'];
      expect(Object.keys(t).sort()).toEqual(expected);
      expect(existsSync(join(pkg.dir, t.source as string)), `${pkg.name} ${subpath} source`).toBe(true);
    }
  });
});

/**
 * Type tests (a package's `test/types/` folder) may import an SDK's types, type-only, to prove
 * the package's types fit the real SDK; the package itself still never loads it.
 */
function isTypeTest(file: string, text: string, spec: string): boolean {
  if (!rel(file).includes('/test/types/')) return false;
  const escaped = spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const all = [...text.matchAll(new RegExp(`import\\s+(type\\s+)?[^;]*?from\\s+['"]${escaped}['"]`, 'g'))];
  return all.length > 0 && all.every((m) => m[1] !== undefined);
}

describe('imports', () => {
  for (const pkg of packages) {
    it(`${pkg.name}: no deep imports, only declared @nanobot deps, SDKs only in providers`, () => {
      const problems: string[] = [];
      const declared = new Set(internalDeps(pkg));
      for (const file of ['src', 'bench', 'test'].flatMap((d) => (existsSync(join(pkg.dir, d)) ? sourceFiles(join(pkg.dir, d)) : []))) {
        const text = readFileSync(file, 'utf8');
        for (const spec of importSpecifiers(text)) {
          if (spec.startsWith('@nanobot/')) {
            const [scope, base, ...rest] = spec.split('/');
            const target = `${scope}/${base}`;
            if (target === pkg.name) {
              // Benchmarks and tests may use the package as a user would; its sources may not.
              const isSource = rel(file).includes('/src/') && !/\.test\.ts$/.test(file);
              if (isSource) problems.push(`${rel(file)} imports its own package by name (${spec})`);
              continue;
            }
            if (!declared.has(target)) problems.push(`${rel(file)} imports undeclared ${target}`);
            const exportsMap = byName.get(target)?.manifest.exports ?? {};
            const sub = rest.length ? `./${rest.join('/')}` : '.';
            if (!(sub in exportsMap)) problems.push(`${rel(file)} deep-imports ${spec}`);
          } else if (spec.startsWith('.')) {
            const resolved = resolve(dirname(file), spec);
            if (!resolved.startsWith(pkg.dir + '/') && resolved !== pkg.dir) {
              problems.push(`${rel(file)} reaches outside its package: ${spec}`);
            }
          } else if (SDKS.some((s) => spec === s || spec.startsWith(`${s}/`)) && pkg.name !== '@nanobot/providers' && !isTypeTest(file, text, spec)) {
            problems.push(`${rel(file)} imports the model SDK ${spec} outside @nanobot/providers`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

describe('package hygiene', () => {
  it.each(packages.map((p) => [p.name, p] as const))('%s has a README with an example and an API table', (_name, pkg) => {
    const file = join(pkg.dir, 'README.md');
    expect(existsSync(file), `${rel(file)} missing`).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/```(ts|typescript|sh|bash)/);
    expect(text).toMatch(/\|.*\|/);
  });
});
