// What a published @nanobot/* package.json must look like so the tarball installs anywhere:
// a dual build (scripts/build-package.mjs) behind `import` and `require` conditions, each with its
// own declarations (`.d.ts` for the ES module, `.d.cts` for CommonJS), so both module systems
// type-check and run without Node's `require(esm)`; no `source` condition in what is published
// (it points at TypeScript that is not shipped), `workspace:*` only (pnpm pack rewrites it), and
// the model SDKs as optional peers.

/** The parts of a manifest the conventions read. */
export interface Manifest {
  name?: unknown;
  private?: unknown;
  version?: unknown;
  description?: unknown;
  license?: unknown;
  type?: unknown;
  engines?: unknown;
  main?: unknown;
  module?: unknown;
  types?: unknown;
  exports?: unknown;
  publishConfig?: unknown;
  files?: unknown;
  scripts?: unknown;
  dependencies?: unknown;
  peerDependencies?: unknown;
  peerDependenciesMeta?: unknown;
  [key: string]: unknown;
}

/** The packages only `@nanobot/providers` may name, and only as optional peers. */
export const MODEL_SDKS = ['openai', '@anthropic-ai/sdk'];

/**
 * Every published package's build: the shared dual build, which empties `dist/` first (so no stale
 * file is packed) and emits what the `exports` conditions name.
 */
export const BUILD_SCRIPT = 'node ../../scripts/build-package.mjs';

/**
 * The conditions of one entry point whose TypeScript source is `source` (`./src/<path>.ts`): the
 * file names scripts/build-package.mjs gives its outputs (`./dist/<path>.js`, `.d.ts`, `.cjs`,
 * `.d.cts`), in the order they must appear. `null` for a source outside `./src`.
 */
export function entryConditions(source: string): { import: { types: string; default: string }; require: { types: string; default: string } } | null {
  const m = /^\.\/src\/(.+)\.ts$/.exec(source);
  if (m === null) return null;
  const base = `./dist/${m[1]}`;
  return { import: { types: `${base}.d.ts`, default: `${base}.js` }, require: { types: `${base}.d.cts`, default: `${base}.cjs` } };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every way `manifest` breaks the published-package conventions, as readable messages (empty
 * when it follows them). `exists(relativePath)` says whether a file exists in the package
 * directory. Pure apart from calling `exists`.
 */
export function manifestProblems(manifest: Manifest, exists: (path: string) => boolean): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, message: string): void => {
    if (!ok) problems.push(message);
  };
  need(typeof manifest.name === 'string' && manifest.name.startsWith('@nanobot/'), 'name must be @nanobot/<name>');
  need(typeof manifest.version === 'string', 'version missing');
  need(typeof manifest.description === 'string' && manifest.description.length > 0, 'description missing');
  need(manifest.license === 'MIT', 'license must be "MIT"');
  need(manifest.type === 'module', 'type must be "module"');
  need(isObject(manifest.engines) && manifest.engines.node === '>=20.19', 'engines.node must be ">=20.19"');
  for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE']) need(exists(file), `${file} missing`);
  // Extra entries (a package's own docs folder) may follow the four every tarball ships.
  need(Array.isArray(manifest.files) && same(manifest.files.slice(0, 4), ['dist', 'README.md', 'CHANGELOG.md', 'LICENSE']), 'files must start with ["dist", "README.md", "CHANGELOG.md", "LICENSE"]');
  const scripts = isObject(manifest.scripts) ? manifest.scripts : {};
  for (const script of ['build', 'typecheck', 'test']) need(typeof scripts[script] === 'string', `scripts.${script} missing`);
  need(scripts.build === BUILD_SCRIPT, `scripts.build must be ${BUILD_SCRIPT} (the dual ESM + CommonJS build)`);

  const exportsMap = isObject(manifest.exports) ? manifest.exports : {};
  need(isObject(manifest.exports) && '.' in exportsMap, 'exports must have a "." entry');
  const publish = isObject(manifest.publishConfig) ? manifest.publishConfig : {};
  need(publish.access === 'public', 'publishConfig.access must be "public"');
  const published = isObject(publish.exports) ? publish.exports : {};
  need(same(Object.keys(published), Object.keys(exportsMap)), 'publishConfig.exports must list the same subpaths as exports');
  // One source/import/require entry checked against what the build emits; its published form.
  const entryProblems = (where: string, entry: Record<string, unknown>): ReturnType<typeof entryConditions> => {
    need(same(Object.keys(entry), ['source', 'import', 'require']), `${where} conditions must be source, import, require (in that order)`);
    const sourceOk = typeof entry.source === 'string' && /^\.\/src\/.+\.ts$/.test(entry.source) && exists(entry.source);
    need(sourceOk, `${where}.source must be an existing ./src/*.ts file`);
    const expected = typeof entry.source === 'string' ? entryConditions(entry.source) : null;
    if (expected === null) return null;
    // Each condition carries its own declarations: `types` first (TypeScript reads the first match).
    for (const kind of ['import', 'require'] as const) {
      need(same(entry[kind], expected[kind]), `${where}.${kind} must be ${JSON.stringify(expected[kind])} (what the build emits for ${String(entry.source)})`);
    }
    return expected;
  };
  for (const [subpath, value] of Object.entries(exportsMap)) {
    const entry = isObject(value) ? value : {};
    // An entry may start with a `node` condition (Node, Bun and Deno get a build that may use
    // node:*; browsers, Workers and bundlers the portable one), itself a source/import/require entry.
    const hasNode = Object.keys(entry)[0] === 'node';
    const nodeEntry = hasNode && isObject(entry.node) ? entry.node : null;
    need(!hasNode || nodeEntry !== null, `exports["${subpath}"].node must be an object of source, import, require`);
    // Anywhere else `node` would never be chosen (conditions match in order): the check below says so.
    const portable = hasNode ? Object.fromEntries(Object.entries(entry).slice(1)) : entry;
    const expectedPortable = entryProblems(`exports["${subpath}"]`, portable);
    const expectedNode = nodeEntry === null ? null : entryProblems(`exports["${subpath}"].node`, nodeEntry);
    if (expectedPortable === null || (hasNode && expectedNode === null)) continue;
    const expected = expectedNode === null ? expectedPortable : { node: expectedNode, ...expectedPortable };
    need(same(published[subpath], expected), `publishConfig.exports["${subpath}"] must be exports["${subpath}"] without source: ${JSON.stringify(expected)}`);
  }
  // Tools that read no `exports` (old bundlers, TypeScript's node10 resolution) get CommonJS.
  const root = entryConditions(isObject(exportsMap['.']) && typeof exportsMap['.'].source === 'string' ? exportsMap['.'].source : '');
  need(manifest.main === root?.require.default, 'main must equal exports["."].require.default (the CommonJS build)');
  need(manifest.module === root?.import.default, 'module must equal exports["."].import.default (the ES module build)');
  need(manifest.types === root?.require.types, 'types must equal exports["."].require.types (.d.cts, for main)');

  const deps = isObject(manifest.dependencies) ? manifest.dependencies : {};
  for (const [dep, range] of Object.entries(deps)) {
    if (dep.startsWith('@nanobot/')) need(range === 'workspace:*', `dependency ${dep} must be "workspace:*" (pnpm pack rewrites it)`);
    need(!dep.startsWith('@nanobot-internal/'), `dependency ${dep} is private and cannot be published`);
    need(!MODEL_SDKS.includes(dep), `${dep} must be an optional peer dependency, not a dependency`);
  }
  const peers = isObject(manifest.peerDependencies) ? manifest.peerDependencies : {};
  const peerMeta = isObject(manifest.peerDependenciesMeta) ? manifest.peerDependenciesMeta : {};
  for (const sdk of MODEL_SDKS.filter((s) => s in peers)) {
    const meta = peerMeta[sdk];
    need(isObject(meta) && meta.optional === true, `peer ${sdk} must be optional (peerDependenciesMeta)`);
  }
  return problems;
}
