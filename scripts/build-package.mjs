#!/usr/bin/env node
// Builds the published package in the current directory (each package's `build` script runs it)
// with tsdown: for every entry of its package.json `exports` (read from the `source` condition),
// an ES module `dist/<entry>.js` with `dist/<entry>.d.ts` and a CommonJS `dist/<entry>.cjs` with
// `dist/<entry>.d.cts`. Every source module becomes a file of its own, mirroring src/ (tsdown's
// unbundle mode): a subpath never holds a second copy of a class or a cache, and an app's bundler
// drops the modules a program does not use (with `sideEffects` in package.json) — merged chunks
// kept whatever a used chunk imported (ajv-formats came along with `govern`). tsdown empties `dist/` first, so no
// stale file is ever packed. The package.json stays the one place that names the entry points
// (tooling/repo-checks checks that its conditions point at these files), and after the build every
// file it names must exist.
//
// CommonJS has no `import.meta`: Rolldown's own stand-in for `import.meta.url` calls `require()`
// inline, which breaks in a function that declares its own `const require =
// createRequire(import.meta.url)` (the tokenizer's lazy rank loading does) — the count then
// silently falls back to bytes. The CJS build therefore replaces `import.meta.url` with an
// expression that names no `require`.
//
// Usage: node ../../scripts/build-package.mjs   (from a package directory; `pnpm build` does it)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'tsdown';

const dir = process.cwd();
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** `./src/anthropic/index.ts` → `anthropic/index`: the output path under dist/ without extension. */
const entryName = (source) => source.replace(/^\.\/src\//, '').replace(/\.ts$/, '');
const entry = {};
for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
  if (typeof conditions?.source !== 'string') throw new Error(`${manifest.name}: exports["${subpath}"] has no source condition to build from`);
  entry[entryName(conditions.source)] = conditions.source;
}
if (Object.keys(entry).length === 0) throw new Error(`${manifest.name}: package.json has no exports to build`);

/**
 * What `import.meta` becomes in the CommonJS build: the file's URL without naming `require`
 * (process.getBuiltinModule: Node 20.16+, Bun, Deno), its directory and path.
 */
const CJS_IMPORT_META = {
  'import.meta.url': 'process.getBuiltinModule("node:url").pathToFileURL(__filename).href',
  'import.meta.dirname': '__dirname',
  'import.meta.filename': '__filename',
};

const started = Date.now();
await build({
  config: false,
  cwd: dir,
  entry,
  format: ['esm', 'cjs'],
  outDir: 'dist',
  clean: true,
  // One output file per source module (see above).
  unbundle: true,
  root: 'src',
  // `.js` + `.d.ts` for ESM (the packages are "type": "module"), `.cjs` + `.d.cts` for CommonJS.
  fixedExtension: false,
  platform: 'node',
  target: `node${String(manifest.engines?.node ?? '20.19').replace(/^>=\s*/, '')}`,
  tsconfig: 'tsconfig.build.json',
  dts: { tsconfig: 'tsconfig.build.json' },
  sourcemap: false,
  // Every bare import (dependencies, peers, Node built-ins) stays an import of the user's copy.
  deps: { skipNodeModulesBundle: true },
  // CommonJS is built on purpose (see above); plugin timings are noise on a loaded machine.
  checks: { legacyCjs: false, pluginTimings: false },
  report: false,
  logLevel: 'warn',
  // A warning fails the build: e.g. an `import.meta` use the CommonJS build has no form for
  // (add it to CJS_IMPORT_META) would otherwise become `{}` there, silently.
  failOnWarn: true,
  inputOptions(options, format) {
    if (format !== 'cjs') return options;
    return { ...options, transform: { ...options.transform, define: { ...options.transform?.define, ...CJS_IMPORT_META } } };
  },
});

// The declaration bundler writes a type-only import with a `resolution-mode` attribute (how a
// CommonJS declaration names the types of an ESM-only peer such as `ai` 7) as a plain import, which
// TypeScript refuses under `module: node16` (TS2823: attributes only on type-only imports there).
// In a declaration file every import is type-only: say so again.
for (const file of readdirSync(join(dir, 'dist'), { recursive: true }).map(String).filter((f) => /\.d\.c?ts$/.test(f))) {
  const text = readFileSync(join(dir, 'dist', file), 'utf8');
  const fixed = text.replace(/^import (?!type )(.+ with \{ "resolution-mode": "(?:import|require)" \};)$/gm, 'import type $1');
  if (fixed !== text) writeFileSync(join(dir, 'dist', file), fixed);
}

// Every file the manifest promises exists (a renamed source would otherwise ship a broken export).
const problems = [];
const targets = (value) => (typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(targets) : []);
for (const [subpath, conditions] of Object.entries(manifest.exports)) {
  for (const target of targets(conditions)) if (!existsSync(join(dir, target))) problems.push(`exports["${subpath}"] → ${target}`);
}
for (const field of ['main', 'module', 'types']) if (typeof manifest[field] === 'string' && !existsSync(join(dir, manifest[field]))) problems.push(`${field} → ${manifest[field]}`);
if (problems.length > 0) {
  console.error(`${manifest.name}: the build is not what package.json promises:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`built ${manifest.name}: ${Object.keys(entry).length} entr${Object.keys(entry).length === 1 ? 'y' : 'ies'}, ESM + CJS with .d.ts/.d.cts, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
