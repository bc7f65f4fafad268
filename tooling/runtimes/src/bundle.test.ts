// The bundler settings and the size/rank accounting, on small real builds.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, bundleSizes, gzipCosts, largestInputs, summarizeErrors } from './bundle.mjs';

const dir = mkdtempSync(join(tmpdir(), 'nanobot-runtimes-bundle-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKER = 'RANKDATA-0123456789-abcdefghijklmnopqrstuvwxyz';
function project(name: string, files: Record<string, string>): string {
  const d = join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    const path = join(d, file);
    rmSync(path, { force: true });
    mkdirSync(d, { recursive: true });
    writeFileSync(path, text);
  }
  return d;
}

describe('bundle', () => {
  const d = project('node-imports', {
    'entry.mjs': "import { createHash } from 'node:crypto';\nimport { readFileSync } from 'fs';\nexport const f = () => [createHash, readFileSync];\n",
  });

  it('fails for the browser on node:* imports, as a result with grouped messages', async () => {
    const r = await bundle({ entry: join(d, 'entry.mjs'), outdir: join(d, 'out'), target: 'browser' });
    expect(r.ok).toBe(false);
    expect(summarizeErrors(r.errors!)).toBe('Could not resolve "node:crypto", "fs" (imported by ' + join(d, 'entry.mjs') + ')');
  });

  it('builds with node:* stubbed as empty CommonJS modules: the imports are undefined, not errors', async () => {
    const r = await bundle({ entry: join(d, 'entry.mjs'), outdir: join(d, 'stubbed'), target: 'edge', stubNode: true });
    expect(r.ok).toBe(true);
  });
});

describe('bundleSizes', () => {
  const d = project('ranks', {
    'ranks.mjs': `export default { bpe_ranks: ${JSON.stringify(MARKER.repeat(20))} };\n`,
    'lazy.mjs': "export async function count() { return (await import('./ranks.mjs')).default.bpe_ranks.length; }\n",
    'eager.mjs': "import ranks from './ranks.mjs';\nexport const n = ranks.bpe_ranks.length;\n",
  });

  it('finds rank data loaded through a dynamic import in a chunk of its own', async () => {
    const out = join(d, 'out-lazy');
    expect((await bundle({ entry: join(d, 'lazy.mjs'), outdir: out, target: 'browser', minify: true })).ok).toBe(true);
    const s = bundleSizes(out, 'lazy.js', { cl100k_base: MARKER });
    expect(s.inMain).toEqual([]);
    expect(s.chunks).toHaveLength(1);
    expect(s.chunks[0].encodings).toEqual(['cl100k_base']);
    expect(s.raw).toBeGreaterThan(0);
    expect(s.raw).toBeLessThan(s.chunks[0].raw);
    expect(s.chunks[0].gzip).toBeLessThan(s.chunks[0].raw);
  });

  it('with the metafile, splits what loads up front from rank-free code loaded on a dynamic import', async () => {
    const e = project('split', {
      'ranks.mjs': `export default { bpe_ranks: ${JSON.stringify(MARKER.repeat(20))} };\n`,
      'coder.mjs': `export const decode = (s) => s.split('').reverse().join('') + ${JSON.stringify('x'.repeat(300))};\n`,
      'entry.mjs': "export async function count() { const [{ decode }, r] = await Promise.all([import('./coder.mjs'), import('./ranks.mjs')]); return decode(r.default.bpe_ranks).length; }\n",
    });
    const out = join(e, 'out');
    const built = await bundle({ entry: join(e, 'entry.mjs'), outdir: out, target: 'browser', minify: true, metafile: true });
    expect(built.ok).toBe(true);
    const s = bundleSizes(out, 'entry.js', { cl100k_base: MARKER }, built.metafile);
    expect(s.chunks.map((c) => c.encodings)).toEqual([['cl100k_base']]);
    expect(s.lazy!.map((c) => c.file.replace(/-[A-Z0-9]+\.js$/, ''))).toEqual(['coder']);
    expect(s.initial!.raw + s.lazy![0]!.raw).toBe(s.raw);
    // Up front: the entry module only; the coder and the ranks are in their chunks.
    const inputs = largestInputs(built.metafile, 'entry.js');
    expect(inputs.map(([group]) => group.split('/').pop())).toEqual(['entry.mjs']);
    expect(inputs[0]![1]).toBeGreaterThan(0);
  });

  it('groups what went into a bundle by package and by source folder', () => {
    const input = (bytesInOutput: number) => ({ bytesInOutput });
    const metafile = {
      inputs: {},
      outputs: {
        'out/entry.js': {
          inputs: {
            '../../packages/governor/src/incremental/memo-store.ts': input(30),
            '../../packages/governor/src/incremental/snip-memo.ts': input(20),
            '../../packages/governor/src/steps/target/profiles/gemini.ts': input(5),
            '../../packages/governor/src/steps/target/user-first.ts': input(7),
            '../../packages/governor/src/govern.ts': input(40),
            '../../node_modules/.pnpm/base64-js@1.5.1/node_modules/base64-js/index.js': input(3),
          },
        },
      },
    } as unknown as Parameters<typeof largestInputs>[0];
    expect(largestInputs(metafile, 'entry.js')).toEqual([
      ['@nanobot/governor incremental', 50],
      ['@nanobot/governor govern', 40],
      ['@nanobot/governor steps/target', 7],
      ['@nanobot/governor steps/target/profiles', 5],
      ['base64-js', 3],
    ]);
  });

  it('costs each group of a bundle in gzip bytes: the gzip of the bundle without it', async () => {
    // An incompressible string (a linear congruential sequence) against a highly repetitive one
    // of the same length: the first costs about its size in gzip, the second almost nothing.
    let x = 1;
    const noise = Array.from({ length: 3000 }, () => String.fromCharCode(33 + ((x = (x * 1103515245 + 12345) % 2 ** 31) % 90))).join('').replace(/[\\'`$]/g, 'a');
    const e = project('gzip-costs', {
      'noise.mjs': `export const noise = \`${noise}\`;\n`,
      'repeat.mjs': `export const repeat = '${'abc'.repeat(1000)}';\n`,
      'entry.mjs': "import { noise } from './noise.mjs';\nimport { repeat } from './repeat.mjs';\nglobalThis.out = [noise, repeat];\n",
    });
    const out = join(e, 'out');
    const built = await bundle({ entry: join(e, 'entry.mjs'), outdir: out, target: 'browser', minify: true, metafile: true });
    expect(built.ok).toBe(true);
    const text = readFileSync(join(out, 'entry.js'), 'utf8');
    const costs = gzipCosts(built.metafile!, 'entry.js', text);
    const cost = (name: string) => [...costs].find(([group]) => group.endsWith(name))![1];
    expect(cost('noise.mjs')).toBeGreaterThan(2000);
    expect(cost('repeat.mjs')).toBeLessThan(100);
    // A text the inputs do not add up to is not cut at all.
    expect(gzipCosts(built.metafile!, 'entry.js', `${text}${' '.repeat(500)}`).size).toBe(0);
  });

  it('finds rank data imported statically inside the main bundle', async () => {
    const out = join(d, 'out-eager');
    expect((await bundle({ entry: join(d, 'eager.mjs'), outdir: out, target: 'browser', minify: true })).ok).toBe(true);
    const s = bundleSizes(out, 'eager.js', { cl100k_base: MARKER, o200k_base: 'absent-marker' });
    expect(s.inMain).toEqual(['cl100k_base']);
    expect(s.chunks).toEqual([]);
  });
});
