// The consumer project every runtime loads the packages from: a plain npm project outside the
// repository (no workspace links, no `source` condition) with the packed tarballs installed as a
// user would install them from the registry, plus the peer libraries at the versions the
// packages are tested against, plus the harness's programs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, repoRoot, runtimesDir } from './paths.mjs';

/** The packages under test (issue 27's portable core that the programs import, with the fetch-based providers). */
export const PACKAGES = ['@nanobot/schema', '@nanobot/governor', '@nanobot/ai-sdk', '@nanobot/langchain', '@nanobot/tools-core', '@nanobot/providers'];

const dirOf = (name) => join(repoRoot, 'packages', name.replace('@nanobot/', ''));
const manifestOf = (name) => JSON.parse(readFileSync(join(dirOf(name), 'package.json'), 'utf8'));

/**
 * Libraries the user installs beside the packages: the peers, pinned to the versions the
 * packages' own tests use (their devDependencies), and zod, which tools-core's README installs.
 */
export function peerVersions() {
  const peers = { zod: manifestOf('@nanobot/tools-core').dependencies.zod };
  for (const name of PACKAGES) {
    const m = manifestOf(name);
    for (const peer of Object.keys(m.peerDependencies ?? {})) {
      const pinned = m.devDependencies?.[peer];
      if (!pinned) throw new Error(`${name}: peer ${peer} has no devDependency pin to test against`);
      peers[peer] = pinned;
    }
  }
  return peers;
}

function sh(cmd, args, cwd, env = process.env) {
  return execFileSync(cmd, args, { cwd, env, stdio: 'pipe', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/**
 * Builds the packages (turbo, cached), packs them with `pnpm pack` (which applies
 * `publishConfig` as a publish does) and returns the tarball paths by package name.
 */
export function packPackages(work) {
  const bin = join(repoRoot, 'node_modules', '.bin');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  const filters = PACKAGES.map((n) => `--filter=${n}`);
  sh(join(bin, 'turbo'), ['run', 'build', '--concurrency=2', '--output-logs=errors-only', ...filters], repoRoot, env);
  const packs = join(work, 'packs');
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(packs, { recursive: true });
  sh(join(bin, 'pnpm'), ['-r', ...filters, 'pack', '--pack-destination', packs], repoRoot, env);
  const tarballs = new Map();
  for (const name of PACKAGES) {
    const file = readdirSync(packs).find((f) => f.startsWith(`${name.slice(1).replace('/', '-')}-`) && f.endsWith('.tgz'));
    if (!file) throw new Error(`pnpm pack made no tarball for ${name} in ${packs}`);
    tarballs.set(name, join(packs, file));
  }
  return tarballs;
}

/**
 * Creates or refreshes `<work>/consumer`. A full `npm install` runs only when the set of
 * dependencies changed (a new peer version, a package's dependencies); otherwise the tarballs
 * are unpacked over `node_modules/@nanobot/*`, which is what npm would do for them.
 */
export function prepareConsumer(work, tarballs) {
  const dir = join(work, 'consumer');
  mkdirSync(dir, { recursive: true });
  const dependencies = { ...peerVersions() };
  for (const [name, file] of tarballs) dependencies[name] = `file:${file}`;
  const manifest = { name: 'nanobot-runtimes-consumer', private: true, version: '0.0.0', type: 'module', dependencies };
  // What decides whether npm must resolve again: the peers and each package's own dependencies.
  const shape = JSON.stringify({ peers: peerVersions(), deps: PACKAGES.map((n) => [n, manifestOf(n).dependencies ?? {}]), npm: sh('npm', ['--version'], dir).trim() });
  const stamp = createHash('sha256').update(shape).digest('hex');
  const stampFile = join(dir, '.install-stamp');
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(dir, 'node_modules'))) {
    for (const [name, file] of tarballs) {
      const target = join(dir, 'node_modules', name);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      sh('tar', ['-xzf', file, '-C', target, '--strip-components=1'], dir);
    }
    log(`consumer: tarballs unpacked over ${dir}/node_modules (dependencies unchanged)`);
  } else {
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    rmSync(join(dir, 'package-lock.json'), { force: true });
    const t0 = Date.now();
    sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'], dir);
    writeFileSync(stampFile, stamp);
    log(`consumer: npm install in ${dir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  // The programs run from the consumer, so they resolve the packages exactly as a user's code.
  const programs = join(dir, 'programs');
  rmSync(programs, { recursive: true, force: true });
  cpSync(join(runtimesDir, 'programs'), programs, { recursive: true });
  return dir;
}
