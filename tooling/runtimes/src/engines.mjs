// The runtimes themselves. Bun, Deno, workerd (with wrangler, which builds Workers) and
// edge-runtime come from the npm registry, pinned with their integrity in engines/package-lock.json
// and installed with `npm ci --ignore-scripts` on first use: every binary ships inside a platform
// package's tarball (@oven/bun-linux-x64, @deno/linux-x64-glibc, @cloudflare/workerd-linux-64),
// so no install script has to download anything. Node majors come from the registry's `node`
// package through npx, as scripts/test-on-node.mjs gets them. Chromium is Debian's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { log, runtimesDir } from './paths.mjs';

const enginesDir = join(runtimesDir, 'engines');
const modules = join(enginesDir, 'node_modules');

/** Installs engines/ from its lockfile unless the installed copy matches it. */
export function ensureEngines() {
  const lock = readFileSync(join(enginesDir, 'package-lock.json'));
  const stamp = createHash('sha256').update(lock).digest('hex');
  const stampFile = join(modules, '.install-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  const t0 = Date.now();
  log('engines: npm ci (bun, deno, workerd, wrangler, edge-runtime; ~420 MB, once)');
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: enginesDir, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(stampFile, stamp);
  log(`engines: installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const requireEngine = createRequire(join(enginesDir, 'package.json'));

/** The platform package's binary (what each launcher package's install script would link). */
function platformBinary(pkg, file) {
  const path = join(modules, pkg, file);
  if (!existsSync(path)) throw new Error(`${pkg} is not installed for ${process.platform}-${process.arch}: ${path} missing`);
  return path;
}

export const engines = {
  bun: () => platformBinary(`@oven/bun-${process.platform}-${process.arch}`, 'bin/bun'),
  deno: () => platformBinary(process.platform === 'linux' ? `@deno/linux-${process.arch}-glibc` : `@deno/${process.platform}-${process.arch}`, 'deno'),
  /** The workerd binary and the newest compatibility date it supports (what a new Worker gets). */
  workerd: () => {
    const w = requireEngine('workerd');
    return { binary: w.default, compatibilityDate: w.compatibilityDate, version: w.version };
  },
  wrangler: () => join(modules, 'wrangler', 'bin', 'wrangler.js'),
  /** edge-runtime's entry module (its `EdgeRuntime` class runs in a Node process). */
  edgeRuntime: () => requireEngine.resolve('edge-runtime'),
  edgeRuntimeVersion: () => JSON.parse(readFileSync(join(modules, 'edge-runtime', 'package.json'), 'utf8')).version,
  wranglerVersion: () => JSON.parse(readFileSync(join(modules, 'wrangler', 'package.json'), 'utf8')).version,
};

const nodeBins = new Map();

/** Path of a Node binary of `major`: this process's when it is that major, else the registry's. */
export function nodeBinary(major) {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  if (!nodeBins.has(major)) {
    nodeBins.set(major, execFileSync('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim());
  }
  return nodeBins.get(major);
}
