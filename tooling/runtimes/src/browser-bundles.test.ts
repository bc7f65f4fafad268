// The portable entries bundle for a web page as a user's bundler builds them (esbuild, platform
// browser, ESM with code splitting, peers external: src/bundle.mjs's `browser` target), from the
// workspace's sources: a node:* import anywhere they reach fails the build here first. The
// bench (bench/bundle-size.bench.ts) prints their sizes; this only checks that they build.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, summarizeErrors } from './bundle.mjs';
import { repoRoot } from './paths.mjs';

const dir = mkdtempSync(join(tmpdir(), 'nanobot-browser-bundles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const peersOf = (pkg: string): string[] => {
  const m = JSON.parse(readFileSync(join(repoRoot, 'packages', pkg, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
  return Object.keys(m.peerDependencies ?? {}).flatMap((p) => [p, `${p}/*`]);
};

/** The entries issue 27 makes portable: the governor's, and the fetch-based providers'. */
const ENTRIES: [string, string][] = [
  ['governor', '@nanobot/governor'],
  ['governor', '@nanobot/governor/anthropic'],
  ['governor', '@nanobot/governor/responses'],
  ['governor', '@nanobot/governor/dialect'],
  ['providers', '@nanobot/providers'],
  ['providers', '@nanobot/providers/openai'],
  ['providers', '@nanobot/providers/anthropic'],
  ['providers', '@nanobot/providers/openai-responses'],
  ['providers', '@nanobot/providers/bedrock'],
  ['providers', '@nanobot/providers/testing'],
];

describe('browser bundles of the portable entries', () => {
  for (const [pkg, spec] of ENTRIES) {
    it(`${spec} builds for the browser`, async () => {
      const name = spec.replace(/[@/]/g, '_');
      const entry = join(dir, `${name}.mjs`);
      writeFileSync(entry, `export * from '${spec}';\n`);
      const r = await bundle({ entry, outdir: join(dir, name), target: 'browser', minify: true, external: peersOf(pkg), nodePaths: [join(import.meta.dirname, '..', 'node_modules')], conditions: ['source'] });
      expect(r.ok ? 'ok' : summarizeErrors(r.errors)).toBe('ok');
    }, 60_000);
  }
});
