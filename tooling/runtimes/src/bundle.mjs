// esbuild as a user's bundler runs it for a non-Node target, and the one deliberate deviation:
// stubbing Node's built-ins (as issue 27 did by hand) to see what the code does once it builds.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { repoRoot } from './paths.mjs';

const BUILTINS = new Set(builtinModules);

/**
 * esbuild plugin: every `node:*` import (and bare built-in like `fs`) resolves to an empty
 * CommonJS module, so named imports are `undefined` at run time instead of a build error.
 */
export const stubNodeBuiltins = {
  name: 'stub-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const bare = args.path.replace(/^node:/, '');
      if (!args.path.startsWith('node:') && !BUILTINS.has(bare)) return undefined;
      return { path: args.path, namespace: 'stubbed-node-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'stubbed-node-builtin' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/**
 * The bundler settings per target, as the target's own tooling sets them:
 * - `browser`: what Vite/esbuild do for a web page (platform browser, ESM, code splitting);
 * - `edge`: what Vercel builds for `edge-runtime` (conditions edge-light/worker/browser, one
 *   classic script that registers a fetch listener: the VM evaluates scripts, not modules).
 */
/** @type {Record<'browser' | 'edge', { platform: esbuild.Platform, format: esbuild.Format, splitting: boolean, conditions: string[] }>} */
export const TARGETS = {
  browser: { platform: 'browser', format: 'esm', splitting: true, conditions: ['browser'] },
  edge: { platform: 'browser', format: 'iife', splitting: false, conditions: ['edge-light', 'worker', 'browser'] },
};

/**
 * Bundles `entry` into `outdir` for `target` (`nodePaths`: where bare imports are also looked
 * up, for an entry outside any project). Returns `{ ok: true, warnings }`, or
 * `{ ok: false, errors }` with esbuild's messages (`Could not resolve "node:fs"`): a failed
 * build is a result here, not an exception.
 * With `metafile`, the result also has esbuild's metafile (which inputs went into which output);
 * `conditions` come before the target's (`source`: the workspace's TypeScript, for a breakdown
 * by source file).
 * @param {{ entry: string, outdir: string, target: keyof typeof TARGETS, minify?: boolean, stubNode?: boolean, external?: string[], nodePaths?: string[], metafile?: boolean, conditions?: string[] }} options
 * @returns {Promise<{ ok: true, warnings: { text: string, file: string | null }[], metafile?: esbuild.Metafile, errors?: undefined } | { ok: false, errors: { text: string, file: string | null }[], warnings?: undefined, metafile?: undefined }>}
 */
export async function bundle({ entry, outdir, target, minify = false, stubNode = false, external = [], nodePaths = [], metafile = false, conditions = [] }) {
  const t = TARGETS[target];
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      outdir,
      bundle: true,
      write: true,
      minify,
      platform: t.platform,
      format: t.format,
      splitting: t.splitting,
      conditions: [...conditions, ...t.conditions],
      target: 'es2022',
      external,
      nodePaths,
      logLevel: 'silent',
      legalComments: 'none',
      plugins: stubNode ? [stubNodeBuiltins] : [],
      metafile,
    });
    return { ok: /** @type {const} */ (true), warnings: result.warnings.map(formatMessage), ...(metafile ? { metafile: result.metafile } : {}) };
  } catch (error) {
    const errors = /** @type {{ errors?: esbuild.Message[] }} */ (error).errors;
    if (!errors) throw error;
    return { ok: /** @type {const} */ (false), errors: errors.map(formatMessage) };
  }
}

/**
 * An esbuild message as `{ text, file }`: `file` from inside node_modules when it is in one
 * (`@nanobot/governor/dist/x.js`), else relative to the repository, else absolute.
 */
function formatMessage(m) {
  if (!m.location) return { text: m.text, file: null };
  const file = resolve(m.location.file);
  if (file.includes('/node_modules/')) return { text: m.text, file: file.replace(/^.*node_modules\//, '') };
  return { text: m.text, file: file.startsWith(`${repoRoot}/`) ? relative(repoRoot, file) : file };
}

/**
 * One line for failed-build messages. Unresolved imports are grouped: `Could not resolve
 * "node:crypto", "node:fs" (imported by @nanobot/governor/dist/file-artifact-store.js, …)`.
 */
export function summarizeErrors(errors, limit = 4) {
  const unresolved = new Map();
  const other = [];
  for (const e of errors) {
    const m = /^Could not resolve "([^"]+)"/.exec(e.text);
    if (!m) other.push(e.file ? `${e.text} (${e.file})` : e.text);
    else unresolved.set(m[1], [...(unresolved.get(m[1]) ?? []), e.file].filter(Boolean));
  }
  const parts = [];
  if (unresolved.size) {
    const importers = [...new Set([...unresolved.values()].flat())];
    const shown = importers.slice(0, limit).join(', ') + (importers.length > limit ? `, … ${importers.length - limit} more` : '');
    const specs = [...unresolved.keys()].map((k) => `"${k}"`);
    const listed = specs.slice(0, 2 * limit).join(', ') + (specs.length > 2 * limit ? ` and ${specs.length - 2 * limit} more` : '');
    parts.push(`Could not resolve ${listed} (imported by ${shown})`);
  }
  const distinct = [...new Set(other)];
  parts.push(...distinct.slice(0, limit), ...(distinct.length > limit ? [`… ${distinct.length - limit} more`] : []));
  return parts.join('; ');
}

/**
 * Sizes of the JavaScript esbuild wrote to `outdir`, and where each encoding's rank data went.
 * `markers` maps an encoding to a slice of its rank string (minifiers keep string contents).
 * Returns `{ raw, gzip }` (gzip -9) summed over every file that holds no rank data,
 * `inMain` (encodings inlined in `mainFile`, whose size then includes them) and `chunks`
 * (`{ file, encodings, raw, gzip }`: rank data in a chunk of its own, loaded when imported).
 * Given the build's `metafile`, also `initial` (`{ raw, gzip }` of `mainFile` and the chunks it
 * imports statically: what a page loads up front) and `lazy` (`{ file, raw, gzip }` of the other
 * rank-free chunks: loaded on a dynamic import, e.g. the tokenizer on the first load).
 */
export function bundleSizes(outdir, mainFile, markers, metafile) {
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  let raw = 0;
  let gzip = 0;
  const inMain = [];
  const chunks = [];
  /** Rank-free files: `{ raw, gzip }` by name. */
  const sizes = new Map();
  for (const file of readdirSync(outdir).filter((f) => f.endsWith('.js')).sort()) {
    const bytes = readFileSync(join(outdir, file));
    const text = bytes.toString('utf8');
    const encodings = Object.entries(markers).filter(([, marker]) => text.includes(marker)).map(([encoding]) => encoding);
    if (encodings.length && file !== mainFile) {
      chunks.push({ file, encodings, raw: bytes.length, gzip: gz(bytes) });
      continue;
    }
    inMain.push(...encodings);
    raw += bytes.length;
    gzip += gz(bytes);
    sizes.set(file, { raw: bytes.length, gzip: gz(bytes) });
  }
  if (!metafile) return { raw, gzip, inMain, chunks };
  // The main output and what it imports statically, transitively (esbuild names outputs by path).
  const outputs = Object.entries(metafile.outputs).map(([path, output]) => ({ file: path.split('/').pop(), path, output }));
  const initialFiles = new Set();
  for (let todo = [mainFile]; todo.length; ) {
    const file = /** @type {string} */ (todo.pop());
    if (initialFiles.has(file)) continue;
    initialFiles.add(file);
    const found = outputs.find((o) => o.file === file);
    for (const imp of found?.output.imports ?? []) if (imp.kind === 'import-statement' && !imp.external) todo.push(imp.path.split('/').pop());
  }
  const initial = { raw: 0, gzip: 0 };
  const lazy = [];
  for (const [file, size] of sizes) {
    if (initialFiles.has(file)) {
      initial.raw += size.raw;
      initial.gzip += size.gzip;
    } else lazy.push({ file, ...size });
  }
  return { raw, gzip, inMain, chunks, initial, lazy };
}

/**
 * The group an input of a bundle counts under: a package under node_modules by name, a
 * repository file by its folder under `src/` (`@nanobot/governor steps/target`; a file
 * directly in `src/` by its name), anything else by its path.
 */
function inputGroup(path) {
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const inRepo = /packages\/([^/]+)\/(?:src|dist)\/(?:(.+)\/)?([^/]+)$/.exec(path);
  return pkg && !pkg[1].startsWith('@nanobot/') ? pkg[1] : inRepo ? `@nanobot/${inRepo[1]} ${inRepo[2] ?? inRepo[3].replace(/\.(ts|js)$/, '')}` : path;
}

/**
 * What went into `mainFile` (an output of a build with a metafile), grouped by
 * {@link inputGroup}; largest first, as `[group, bytes in the minified output]`.
 */
export function largestInputs(metafile, mainFile) {
  const output = Object.entries(metafile.outputs).find(([path]) => path.split('/').pop() === mainFile)?.[1];
  const groups = new Map();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const group = inputGroup(path);
    groups.set(group, (groups.get(group) ?? 0) + input.bytesInOutput);
  }
  return [...groups].sort((a, b) => b[1] - a[1]);
}

/**
 * What each group of {@link largestInputs} costs in gzip bytes: the gzip size (-9) of `text`
 * (the written `mainFile`) minus that of `text` without the group's part. esbuild lists a
 * file's inputs in output order, so the parts are cut by their `bytesInOutput`; they are
 * approximate by a few bytes where esbuild merged declarations across modules (their sum can
 * differ from the file's length by as much). Gzip shares repeats, so the costs add up to more
 * than the whole. Returns `Map<group, bytes>`, empty when the inputs do not add up to about
 * `text`'s length (then the cut would be wrong).
 */
export function gzipCosts(metafile, mainFile, text) {
  const output = Object.entries(metafile.outputs).find(([path]) => path.split('/').pop() === mainFile)?.[1];
  const parts = new Map();
  let offset = 0;
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const group = inputGroup(path);
    parts.set(group, [...(parts.get(group) ?? []), [offset, offset + input.bytesInOutput]]);
    offset += input.bytesInOutput;
  }
  const costs = new Map();
  if (Math.abs(offset - Buffer.byteLength(text)) > 64) return costs;
  const bytes = Buffer.from(text);
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const whole = gz(bytes);
  for (const [group, ranges] of parts) {
    const kept = [];
    let last = 0;
    for (const [start, end] of ranges) {
      kept.push(bytes.subarray(last, start));
      last = end;
    }
    kept.push(bytes.subarray(last));
    costs.set(group, whole - gz(Buffer.concat(kept)));
  }
  return costs;
}
