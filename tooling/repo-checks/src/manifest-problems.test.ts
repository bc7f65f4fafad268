import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_SCRIPT, entryConditions, manifestProblems, type Manifest } from './manifest-problems.js';
import { listPackages, repoRoot } from './workspace.js';

const dual = (base: string) => ({ import: { types: `${base}.d.ts`, default: `${base}.js` }, require: { types: `${base}.d.cts`, default: `${base}.cjs` } });
const good: Manifest = {
  name: '@nanobot/example',
  version: '0.1.0',
  description: 'An example.',
  license: 'MIT',
  type: 'module',
  engines: { node: '>=20.19' },
  main: './dist/index.cjs',
  module: './dist/index.js',
  types: './dist/index.d.cts',
  exports: {
    '.': { source: './src/index.ts', ...dual('./dist/index') },
    './node': { source: './src/node/index.ts', ...dual('./dist/node/index') },
  },
  publishConfig: { access: 'public', exports: { '.': dual('./dist/index'), './node': dual('./dist/node/index') } },
  files: ['dist', 'README.md', 'CHANGELOG.md', 'LICENSE'],
  scripts: { build: BUILD_SCRIPT, typecheck: 'tsc -p tsconfig.json --noEmit', test: 'vitest run' },
  dependencies: { '@nanobot/schema': 'workspace:*', zod: '^4.0.0' },
};
const all = (): boolean => true;
const withChange = (change: Partial<Manifest>): Manifest => ({ ...structuredClone(good), ...change });
const withEntry = (entry: Record<string, unknown>): Manifest => withChange({ exports: { ...(good.exports as object), '.': entry } });

describe('entryConditions', () => {
  it('names the four files the dual build emits for a source, and nothing for a file outside src', () => {
    expect(entryConditions('./src/anthropic/index.ts')).toEqual(dual('./dist/anthropic/index'));
    expect(entryConditions('./lib/index.ts')).toBeNull();
  });
});

describe('manifestProblems', () => {
  it('accepts a manifest that follows the conventions', () => {
    expect(manifestProblems(good, all)).toEqual([]);
  });

  it('rejects a published source condition', () => {
    const bad = withChange({ publishConfig: { access: 'public', exports: { '.': { source: './src/index.ts', ...dual('./dist/index') }, './node': dual('./dist/node/index') } } });
    expect(manifestProblems(bad, all)).toEqual([expect.stringContaining('publishConfig.exports["."]')]);
  });

  it('accepts a leading node condition of the same shape, published without its source, and rejects a malformed one', () => {
    const nodeFirst = { node: { source: './src/node/index.ts', ...dual('./dist/node/index') }, source: './src/index.ts', ...dual('./dist/index') };
    const published = { node: dual('./dist/node/index'), ...dual('./dist/index') };
    const ok = withChange({ exports: { ...(good.exports as object), '.': nodeFirst }, publishConfig: { access: 'public', exports: { '.': published, './node': dual('./dist/node/index') } } });
    expect(manifestProblems(ok, all)).toEqual([]);
    const nodeWithoutRequire = withChange({ exports: { ...(good.exports as object), '.': { ...nodeFirst, node: { source: './src/node/index.ts', import: dual('./dist/node/index').import } } }, publishConfig: ok.publishConfig });
    expect(manifestProblems(nodeWithoutRequire, all).join('\n')).toMatch(/exports\["\."\]\.node conditions must be source, import, require/);
    const nodeNotFirst = withChange({ exports: { ...(good.exports as object), '.': { source: './src/index.ts', ...dual('./dist/index'), node: nodeFirst.node } }, publishConfig: ok.publishConfig });
    expect(manifestProblems(nodeNotFirst, all).join('\n')).toMatch(/exports\["\."\] conditions must be source, import, require/);
  });

  it('rejects the ESM-only shape (types/import/default) and a missing require condition', () => {
    const esmOnly = withEntry({ source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
    expect(manifestProblems(esmOnly, all).join('\n')).toMatch(/source, import, require/);
    const noRequire = withEntry({ source: './src/index.ts', import: dual('./dist/index').import });
    expect(manifestProblems(noRequire, all).join('\n')).toMatch(/exports\["\."\]\.require must be/);
  });

  it('rejects one declaration file for both conditions, types after default, and require of the ESM file', () => {
    const sharedTypes = withEntry({ source: './src/index.ts', import: dual('./dist/index').import, require: { types: './dist/index.d.ts', default: './dist/index.cjs' } });
    expect(manifestProblems(sharedTypes, all)).toEqual([expect.stringContaining('exports["."].require must be')]);
    const typesLast = withEntry({ source: './src/index.ts', import: { default: './dist/index.js', types: './dist/index.d.ts' }, require: dual('./dist/index').require });
    expect(manifestProblems(typesLast, all)).toEqual([expect.stringContaining('exports["."].import must be')]);
    const requireEsm = withEntry({ source: './src/index.ts', import: dual('./dist/index').import, require: { types: './dist/index.d.cts', default: './dist/index.js' } });
    expect(manifestProblems(requireEsm, all)).toEqual([expect.stringContaining('exports["."].require must be')]);
  });

  it('rejects outputs named after another file than the source', () => {
    const renamed = withEntry({ source: './src/main.ts', ...dual('./dist/index') });
    expect(manifestProblems(renamed, all).join('\n')).toMatch(/what the build emits for \.\/src\/main\.ts/);
  });

  it('requires main, module and types to be the root entry\'s CommonJS, ESM and .d.cts files', () => {
    const problems = manifestProblems(withChange({ main: './dist/index.js', module: undefined, types: './dist/index.d.ts' }), all);
    expect(problems).toEqual([expect.stringContaining('main must equal'), expect.stringContaining('module must equal'), expect.stringContaining('types must equal')]);
  });

  it('rejects model SDKs as dependencies and non-optional SDK peers', () => {
    expect(manifestProblems(withChange({ dependencies: { openai: '^6.0.0' } }), all)).toEqual([expect.stringContaining('openai must be an optional peer')]);
    const peer = withChange({ peerDependencies: { '@anthropic-ai/sdk': '^1.0.0' } });
    expect(manifestProblems(peer, all)).toEqual([expect.stringContaining('peer @anthropic-ai/sdk must be optional')]);
  });

  it('rejects internal ranges other than workspace:* and private packages as dependencies', () => {
    const bad = withChange({ dependencies: { '@nanobot/schema': '^0.1.0', '@nanobot-internal/test-support': 'workspace:*' } });
    expect(manifestProblems(bad, all)).toHaveLength(2);
  });

  it('requires README, CHANGELOG and LICENSE on disk and in files', () => {
    expect(manifestProblems(good, (p) => p !== 'CHANGELOG.md')).toEqual(['CHANGELOG.md missing']);
    expect(manifestProblems(withChange({ files: ['dist'] }), all)).toHaveLength(1);
  });

  it('requires the shared dual build', () => {
    const tscOnly = withChange({ scripts: { build: 'tsc -p tsconfig.build.json', typecheck: 'x', test: 'y' } });
    expect(manifestProblems(tscOnly, all)).toEqual([expect.stringContaining('scripts.build must be')]);
  });
});

describe('the published manifest (.pnpmfile.cjs beforePacking)', () => {
  type Hook = (pkg: Record<string, unknown>) => Record<string, unknown>;
  const beforePacking = (createRequire(import.meta.url)(join(repoRoot, '.pnpmfile.cjs')) as { hooks: { beforePacking: Hook } }).hooks.beforePacking;
  const published = listPackages().filter((p) => p.manifest.private !== true);

  it.each(published.map((p) => [p.name, p] as const))('%s is packed without devDependencies and scripts, its package.json untouched', (_name, pkg) => {
    const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const before = structuredClone(manifest);
    const packed = beforePacking(manifest);
    expect(packed).not.toHaveProperty('devDependencies');
    expect(packed).not.toHaveProperty('scripts');
    const { devDependencies: _d, scripts: _s, ...rest } = before;
    expect(packed).toEqual(rest);
    expect(manifest).toEqual(before);
  });
});

describe('published package manifests', () => {
  const published = listPackages().filter((p) => p.manifest.private !== true);

  it('covers every non-private package under packages/', () => {
    expect(published.length).toBeGreaterThanOrEqual(10);
    expect(published.every((p) => p.dir.includes('/packages/'))).toBe(true);
  });

  it.each(published.map((p) => [p.name, p] as const))('%s follows the published-package conventions', (_name, pkg) => {
    const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as Manifest;
    expect(manifestProblems(manifest, (p) => existsSync(join(pkg.dir, p)))).toEqual([]);
  });
});

describe('API reference (TypeDoc, `pnpm docs:api` → docs/api)', () => {
  const published = listPackages().filter((p) => p.manifest.private !== true);
  const slug = (name: string): string => name.replace(/^@/, '_').replace(/\//g, '_');

  it.each(published.map((p) => [p.name, p] as const))('%s: TypeDoc documents every export entry point', (_name, pkg) => {
    const sources = Object.values(pkg.manifest.exports ?? {}).map((t) => (t as { source: string }).source.replace(/^\.\//, ''));
    const configFile = join(pkg.dir, 'typedoc.json');
    // The root typedoc.json documents src/index.ts; a package with more entry points lists them all.
    const entryPoints = existsSync(configFile) ? (JSON.parse(readFileSync(configFile, 'utf8')) as { entryPoints: string[] }).entryPoints : ['src/index.ts'];
    expect([...entryPoints].sort()).toEqual([...sources].sort());
  });

  it.each(published.map((p) => [p.name, p] as const))('%s: the README API section links to the generated reference', (name, pkg) => {
    const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
    expect(readme).toContain(`../../docs/api/modules/${slug(name)}.html`);
  });
});
