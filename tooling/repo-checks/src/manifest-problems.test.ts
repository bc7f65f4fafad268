import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLEAN_DIST, manifestProblems, type Manifest } from './manifest-problems.js';
import { listPackages } from './workspace.js';

const good: Manifest = {
  name: '@nanobot/example',
  version: '0.1.0',
  description: 'An example.',
  license: 'MIT',
  type: 'module',
  engines: { node: '>=20.19' },
  main: './dist/index.js',
  types: './dist/index.d.ts',
  exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' } },
  publishConfig: { access: 'public', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' } } },
  files: ['dist', 'README.md', 'CHANGELOG.md', 'LICENSE'],
  scripts: { build: `${CLEAN_DIST}tsc -p tsconfig.build.json`, typecheck: 'tsc -p tsconfig.json --noEmit', test: 'vitest run' },
  dependencies: { '@nanobot/schema': 'workspace:*', zod: '^4.0.0' },
};
const all = (): boolean => true;
const withChange = (change: Partial<Manifest>): Manifest => ({ ...structuredClone(good), ...change });

describe('manifestProblems', () => {
  it('accepts a manifest that follows the conventions', () => {
    expect(manifestProblems(good, all)).toEqual([]);
  });

  it('rejects a published source condition and a missing default', () => {
    const bad = withChange({ publishConfig: { access: 'public', exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' } } } });
    expect(manifestProblems(bad, all)).toEqual([expect.stringContaining('publishConfig.exports["."]')]);
    const noDefault = withChange({ exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' } } });
    expect(manifestProblems(noDefault, all).join('\n')).toMatch(/source, types, import, default/);
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

  it('requires a build that starts from a clean dist', () => {
    expect(manifestProblems(withChange({ scripts: { build: 'tsc -p tsconfig.build.json', typecheck: 'x', test: 'y' } }), all)).toEqual([expect.stringContaining('scripts.build')]);
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
