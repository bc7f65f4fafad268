// Shared vitest settings: every package resolves sibling @nanobot/* packages to their
// TypeScript sources (the "source" export condition), so tests never need a prior build.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configDefaults, type ViteUserConfig } from 'vitest/config';

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
      // `*.majors.test.ts` need the newer majors of a peer library: only `peerMajorsConfig` runs them.
      exclude: [...configDefaults.exclude, '**/*.majors.test.ts'],
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

/**
 * The suite of `packageDir` once more against the newer majors of its peer libraries, installed
 * beside the tested ones under npm aliases (`"ai-v7": "npm:ai@7.0.173"`): every import of
 * `peers`' keys (and their subpaths) resolves to the aliased package instead, so the same tests
 * run against both majors. These majors need Node 22 (their `engines`): the config refuses an
 * older Node with a clear error rather than skipping. Reports go to `.vitest-report.majors.json`
 * (`scripts/test-on-node.mjs` names them per Node major).
 */
export function peerMajorsConfig(packageDir: string, peers: Record<string, string>, overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    throw new Error(`the current majors of ${Object.keys(peers).join(', ')} need Node >= 22 (this is ${process.version}): run \`node scripts/test-on-node.mjs 22 ${packageDir.slice(root.length + 1)}\``);
  }
  // Which versions the aliases hold, for the tests that prove the run really loads them.
  const versions = Object.fromEntries(Object.entries(peers).map(([name, alias]) => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'node_modules', alias, 'package.json'), 'utf8')) as { version: string };
    return [name, manifest.version];
  }));
  const base = sharedConfig(packageDir, {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    outputFile: { json: join(packageDir, '.vitest-report.majors.json') },
    ...overrides,
  });
  base.test!.env = { ...base.test!.env, NANOBOT_PEER_MAJORS: JSON.stringify(versions) };
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  // Bare specifier to bare specifier: the alias resolves from the importing file like any
  // dependency, with the aliased package's own `exports` and dependencies.
  const majors = Object.entries(peers).map(([name, alias]) => ({ find: new RegExp(`^${escape(name)}(?=$|/)`), replacement: alias }));
  return { ...base, resolve: { alias: [...majors, ...sourceAliases()] } };
}
