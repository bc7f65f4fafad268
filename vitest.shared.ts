// Shared vitest settings: every package resolves sibling @nanobot/* packages to their
// TypeScript sources (the "source" export condition), so tests never need a prior build.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ViteUserConfig } from 'vitest/config';

const root = import.meta.dirname;

function sourceAliases(): { find: RegExp; replacement: string }[] {
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const pkgFile = join(dir, name, 'package.json');
      if (!existsSync(pkgFile)) continue;
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
        name: string;
        exports?: Record<string, { source?: string; node?: { source?: string } } | string>;
      };
      for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
        // Tests run on Node: an entry with a `node` condition resolves to its Node source, as Node does.
        const source = typeof target === 'object' ? (target.node?.source ?? target.source) : undefined;
        if (!source) continue;
        const spec = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
        const escaped = spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        aliases.push({ find: new RegExp(`^${escaped}$`), replacement: resolve(dir, name, source) });
      }
    }
  }
  return aliases;
}

/** Builds the vitest config for one package directory. */
export function sharedConfig(packageDir: string, overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return {
    resolve: { alias: sourceAliases() },
    test: {
      root: packageDir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      reporters: ['default', 'json'],
      outputFile: { json: join(packageDir, '.vitest-report.json') },
      // Generous: tests that start servers and processes must pass on a loaded 2-core machine.
      // No test asserts on speed; exhaustive sizes run only in `pnpm test:exhaustive`.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      pool: 'forks',
      passWithNoTests: true,
      // The fixtures (conformance cases from the reference, recorded transcripts) live in the repository.
      env: { NANOBOT_FIXTURES_DIR: process.env.NANOBOT_FIXTURES_DIR ?? resolve(root, 'fixtures') },
      ...overrides,
    },
  };
}
