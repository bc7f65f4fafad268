// Bundle sizes for the browser (issue 27 item 2): esbuild, minified, platform browser, ESM with
// code splitting, as a web app's bundler builds it. One program imports only `govern`; then one
// per published entry point of every package (`export *`: the whole entry, nothing shaken off),
// with its peer dependencies left external (the app has them anyway). Prints raw and gzip sizes
// (gzip -9), and where each encoding's rank data ends up: in the main bundle, in a chunk of its
// own (loaded on first count), or absent (no bundler can see how the code loads it).
// A build that fails for the browser (today: node:* imports) is reported, then built again with
// node:* stubbed as empty modules, as issue 27 did by hand (70 KB min, 24 KB gzip), to compare.
// Target (issue 27): the govern-only program <= 25 KB gzip without the rank data.
// Usage: node scripts/bench.mjs bundle-size   (builds the packages first; turbo caches)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundle, bundleSizes, gzipCosts, largestInputs, summarizeErrors } from '../src/bundle.mjs';

const here = resolve(import.meta.dirname, '..');
const root = resolve(here, '..', '..');
const GOVERN_TARGET_GZIP = 25 * 1024;

interface Manifest {
  name: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  publishConfig?: { exports?: Record<string, unknown> };
  peerDependencies?: Record<string, string>;
}

const packages = readdirSync(join(root, 'packages'))
  .sort()
  .map((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest)
  .filter((m) => m.private !== true);

execFileSync(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--concurrency=2', '--output-logs=errors-only', ...packages.map((m) => `--filter=${m.name}`)], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` },
});

// A slice from the middle of each encoding's rank string: minifiers keep string contents.
const schemaDir = realpathSync(join(here, 'node_modules', '@nanobot', 'schema'));
const requireFromSchema = createRequire(join(schemaDir, 'package.json'));
const RANKS: Record<string, string> = {};
for (const encoding of ['cl100k_base', 'o200k_base']) {
  const mod = (await import(requireFromSchema.resolve(`js-tiktoken/ranks/${encoding}`))) as { default: { bpe_ranks: string } };
  const ranks = mod.default.bpe_ranks;
  RANKS[encoding] = ranks.slice(ranks.length / 2, ranks.length / 2 + 64);
}

interface Program {
  label: string;
  source: string;
  external: string[];
}

const peersOf = (m: Manifest) => Object.keys(m.peerDependencies ?? {}).flatMap((p) => [p, `${p}/*`]);
const programs: Program[] = [{ label: "import { govern } from '@nanobot/governor'", source: "import { govern } from '@nanobot/governor';\nglobalThis.govern = govern;\n", external: [] }];
for (const m of packages) {
  for (const sub of Object.keys(m.publishConfig?.exports ?? m.exports ?? {})) {
    const spec = sub === '.' ? m.name : `${m.name}/${sub.replace(/^\.\//, '')}`;
    programs.push({ label: spec, source: `export * from '${spec}';\n`, external: peersOf(m) });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

interface Measured {
  ok: boolean;
  error?: string;
  raw?: number;
  gzip?: number;
  ranks?: string;
  /** Up front (the entry and its static chunks) and on a dynamic import (rank-free chunks). */
  split?: string;
  /** With `breakdown`: the largest inputs of the entry bundle, built from the sources. */
  inputs?: [string, number][];
  /** With `breakdown`: what each of those groups costs in gzip bytes (the bundle without it). */
  gzipCosts?: Map<string, number>;
}

async function measure(p: Program, stubNode: boolean, breakdown = false): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'nanobot-bundle-size-'));
  try {
    // The packages resolve from tooling/runtimes/node_modules, as from a dependent project's.
    const entry = join(dir, 'entry.mjs');
    writeFileSync(entry, p.source);
    const common = { entry, target: 'browser' as const, minify: true, stubNode, external: p.external, nodePaths: [join(here, 'node_modules')], metafile: true };
    const built = await bundle({ ...common, outdir: join(dir, 'out') });
    if (!built.ok) return { ok: false, error: summarizeErrors(built.errors, 3) };
    const sizes = bundleSizes(join(dir, 'out'), 'entry.js', RANKS, built.metafile);
    const where = [
      ...sizes.inMain.map((e) => `${e} inlined in the main bundle`),
      ...sizes.chunks.map((c) => `${c.encodings.join('+')} in chunk ${c.file} (${kb(c.raw)}, ${kb(c.gzip)} gzip)`),
    ];
    const split = `up front ${kb(sizes.initial!.gzip)} gzip; on first load: ${sizes.lazy!.map((c) => `${c.file.replace(/-[A-Z0-9]{8}\.js$/, '')} ${kb(c.gzip)}`).join(', ') || 'nothing'}`;
    let inputs: [string, number][] | undefined;
    let costs: Map<string, number> | undefined;
    if (breakdown) {
      // The same program from the workspace's TypeScript (`source` condition): one row per source folder, not per dist chunk.
      const fromSources = await bundle({ ...common, outdir: join(dir, 'out-src'), conditions: ['source'] });
      if (fromSources.ok) {
        inputs = largestInputs(fromSources.metafile, 'entry.js');
        costs = gzipCosts(fromSources.metafile, 'entry.js', readFileSync(join(dir, 'out-src', 'entry.js'), 'utf8'));
      }
    }
    return { ok: true, raw: sizes.raw, gzip: sizes.gzip, ranks: where.length ? where.join('; ') : 'absent (not loaded through anything a bundler follows)', split, inputs, gzipCosts: costs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log('bundle sizes: esbuild, minified, platform browser, ESM + code splitting, peers external; gzip -9; sizes without rank-data chunks\n');
let governGzip: number | null = null;
for (const p of programs) {
  const m = await measure(p, false, p === programs[0]);
  if (m.ok) {
    console.log(`${p.label}\n  ${kb(m.raw!)} min, ${kb(m.gzip!)} gzip (${m.split}); rank data: ${m.ranks}`);
    if (m.inputs) {
      console.log(`  largest inputs (minified bytes, from the sources): ${m.inputs.slice(0, 14).map(([g, n]) => `${g} ${kb(n)}`).join(', ')}`);
      const costs = [...(m.gzipCosts ?? [])].sort((a, b) => b[1] - a[1]);
      // What leaving each group out would save: the figure to weigh against the target.
      if (costs.length) console.log(`  gzip cost of each (the bundle's gzip minus its gzip without the group): ${costs.slice(0, 14).map(([g, n]) => `${g} ${kb(n)}`).join(', ')}`);
    }
    if (p === programs[0]) governGzip = m.gzip!;
    continue;
  }
  console.log(`${p.label}\n  does not bundle for the browser: ${m.error}`);
  const stubbed = await measure(p, true);
  if (stubbed.ok) console.log(`  with node:* stubbed: ${kb(stubbed.raw!)} min, ${kb(stubbed.gzip!)} gzip; rank data: ${stubbed.ranks}`);
  else console.log(`  with node:* stubbed: still fails: ${stubbed.error}`);
}
console.log(
  governGzip === null
    ? `\ngovern-only program: does not bundle for the browser (target: bundles, <= ${kb(GOVERN_TARGET_GZIP)} gzip without rank data)`
    : `\ngovern-only program: ${kb(governGzip)} gzip without rank data (up front and on first load) = ${(governGzip / GOVERN_TARGET_GZIP).toFixed(2)}x the ${kb(GOVERN_TARGET_GZIP)} target`,
);
