// What a published @nanobot/* package.json must look like so the tarball installs anywhere:
// ESM with `types`, `import` and `default` conditions (the last lets Node 20.19+ `require()` the
// ESM build), no `source` condition in what is published (it points at TypeScript that is not
// shipped), `workspace:*` only (pnpm pack rewrites it), and the model SDKs as optional peers.

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

/** How every published package's build starts: a clean dist, so the tarball holds only current output. */
export const CLEAN_DIST = `node -e "fs.rmSync('dist',{recursive:true,force:true})" && `;

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
  // tsc never deletes outputs of removed sources; a stale dist file would be packed and published.
  need(typeof scripts.build === 'string' && scripts.build.startsWith(CLEAN_DIST), `scripts.build must start with ${CLEAN_DIST}`);

  const exportsMap = isObject(manifest.exports) ? manifest.exports : {};
  need(isObject(manifest.exports) && '.' in exportsMap, 'exports must have a "." entry');
  const publish = isObject(manifest.publishConfig) ? manifest.publishConfig : {};
  need(publish.access === 'public', 'publishConfig.access must be "public"');
  const published = isObject(publish.exports) ? publish.exports : {};
  need(same(Object.keys(published), Object.keys(exportsMap)), 'publishConfig.exports must list the same subpaths as exports');
  for (const [subpath, value] of Object.entries(exportsMap)) {
    const entry = isObject(value) ? value : {};
    need(same(Object.keys(entry), ['source', 'types', 'import', 'default']), `exports["${subpath}"] conditions must be source, types, import, default (in that order)`);
    need(typeof entry.source === 'string' && /^\.\/src\/.+\.ts$/.test(entry.source) && exists(entry.source), `exports["${subpath}"].source must be an existing ./src/*.ts file`);
    need(typeof entry.types === 'string' && /^\.\/dist\/.+\.d\.ts$/.test(entry.types), `exports["${subpath}"].types must point into ./dist (.d.ts)`);
    need(typeof entry.import === 'string' && /^\.\/dist\/.+\.js$/.test(entry.import), `exports["${subpath}"].import must point into ./dist (.js)`);
    need(entry.default === entry.import, `exports["${subpath}"].default must equal import (the same ESM file)`);
    const pub = published[subpath];
    need(same(pub, { types: entry.types, import: entry.import, default: entry.default }), `publishConfig.exports["${subpath}"] must be exports["${subpath}"] without source: { types, import, default }`);
  }
  const root = isObject(exportsMap['.']) ? exportsMap['.'] : {};
  need(manifest.main === root.import, 'main must equal exports["."].import');
  need(manifest.types === root.types, 'types must equal exports["."].types');

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
