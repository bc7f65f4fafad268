#!/usr/bin/env node
// Installs the packages as a stranger would: builds, `pnpm pack`s every published package into a
// temporary directory, then in plain npm projects outside the repository (no workspace):
//   1. governor alone: install footprint;
//   2. runner + @nanobot/providers + openai only: footprint, and createProvider for the missing
//      Anthropic SDK throws MissingSdkError naming `@anthropic-ai/sdk`;
//   3. everything + both SDKs + TypeScript: every package and subpath imports as ESM, the governor
//      and the runner `require()` from CommonJS, and every README's TypeScript example type-checks
//      under --strict with `module: node16` and with `moduleResolution: bundler`, against the real
//      SDK types.
// `npm pack` is not supported: it leaves `workspace:*` in the tarball; `pnpm pack` rewrites it
// to the version and applies `publishConfig.exports`.
// Usage: node scripts/pack-smoke.mjs [--report file.json] [--keep]
// Prints the footprints; with --report writes the checks as a vitest-shaped JSON report.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { report: { type: 'string' }, keep: { type: 'boolean', default: false } } });
const work = mkdtempSync(join(tmpdir(), 'nanobot-pack-smoke-'));
const pnpm = join(root, 'node_modules', '.bin', 'pnpm');
const results = [];
const footprint = {};

function check(name, fn) {
  const start = Date.now();
  try {
    fn();
    results.push({ fullName: name, status: 'passed', duration: Date.now() - start });
    console.log(`  ✓ ${name}`);
  } catch (error) {
    const message = String(error?.stderr ?? '') + String(error?.stdout ?? '') + String(error?.message ?? error);
    results.push({ fullName: name, status: 'failed', duration: Date.now() - start, failureMessages: [message] });
    console.log(`  ✗ ${name}\n${message.split('\n').slice(0, 40).map((l) => `      ${l}`).join('\n')}`);
  }
}

function sh(cmd, args, cwd, extraEnv = {}) {
  return execFileSync(cmd, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 });
}

function duKb(dir) {
  return Number(sh('du', ['-sk', dir], work).split('\t')[0]);
}
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;

// --- the packages ---------------------------------------------------------------------------
const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter((p) => p.manifest.private !== true);
const tarballs = new Map();
const tarDir = join(work, 'tarballs');
mkdirSync(tarDir);

console.log(`pack smoke in ${work}`);
check('build every package', () => {
  sh(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--concurrency=2', ...packages.map((p) => `--filter=${p.manifest.name}`)], root, {
    PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
  });
});
check('pnpm pack every package', () => {
  for (const p of packages) {
    const out = sh(pnpm, ['pack', '--pack-destination', tarDir], p.dir).trim().split('\n').at(-1);
    const file = out.startsWith('/') ? out : join(tarDir, out.split('/').at(-1));
    if (!existsSync(file)) throw new Error(`${p.manifest.name}: no tarball (${out})`);
    tarballs.set(p.manifest.name, file);
  }
});
check('tarballs carry no workspace: ranges, no source condition, and ship dist, README, CHANGELOG, LICENSE', () => {
  const problems = [];
  for (const [name, file] of tarballs) {
    const manifest = JSON.parse(sh('tar', ['-xzOf', file, 'package/package.json'], work));
    const listing = sh('tar', ['-tzf', file], work).split('\n');
    const text = JSON.stringify(manifest);
    if (text.includes('workspace:')) problems.push(`${name}: workspace: range left in the tarball`);
    if (text.includes('"source"')) problems.push(`${name}: source condition published`);
    for (const [sub, entry] of Object.entries(manifest.exports ?? {})) {
      if (JSON.stringify(Object.keys(entry)) !== JSON.stringify(['types', 'import', 'default'])) problems.push(`${name} ${sub}: conditions ${Object.keys(entry)}`);
      for (const target of Object.values(entry)) if (!listing.includes(`package/${target.replace(/^\.\//, '')}`)) problems.push(`${name} ${sub}: ${target} not in tarball`);
    }
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json']) if (!listing.includes(`package/${f}`)) problems.push(`${name}: ${f} missing`);
    const stray = listing.filter((f) => /\.test\.|\/src\/|test-support|\.map$/.test(f));
    if (stray.length) problems.push(`${name}: ships ${stray.slice(0, 5).join(', ')}`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
});

// --- plain npm projects -----------------------------------------------------------------------
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const p = packages.find((x) => x.manifest.name === name);
  for (const dep of Object.keys(p?.manifest.dependencies ?? {})) if (dep.startsWith('@nanobot/')) closure(dep, seen);
  return seen;
}

function project(name, type) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `smoke-${name}`, private: true, version: '0.0.0', type }, null, 2));
  return dir;
}

function npmInstall(dir, specs) {
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs], dir);
}

const governorDir = project('governor-alone', 'module');
check('npm install the governor alone from its tarballs', () => {
  npmInstall(governorDir, [...closure('@nanobot/governor')].map((n) => tarballs.get(n)));
  footprint.governor = duKb(join(governorDir, 'node_modules'));
  footprint.tokenizer = duKb(join(governorDir, 'node_modules', 'js-tiktoken'));
  sh(process.execPath, ['--input-type=module', '-e', "const g = await import('@nanobot/governor'); if (typeof g.govern !== 'function') process.exit(2);"], governorDir);
});

const runnerDir = project('runner-openai', 'module');
check('npm install the runner with one provider SDK (openai)', () => {
  npmInstall(runnerDir, [...[...closure('@nanobot/runner')].map((n) => tarballs.get(n)), 'openai']);
  footprint.runnerOpenai = duKb(join(runnerDir, 'node_modules'));
  footprint.openaiSdk = duKb(join(runnerDir, 'node_modules', 'openai'));
  if (existsSync(join(runnerDir, 'node_modules', '@anthropic-ai', 'sdk'))) throw new Error('@anthropic-ai/sdk was installed although nobody asked for it');
});
check('createProvider for the SDK that is not installed throws MissingSdkError naming it; the installed one works', () => {
  const code = `
    const { createProvider, MissingSdkError } = await import('@nanobot/providers');
    const openai = await createProvider({ provider: 'openai', apiKey: 'k', model: 'm' });
    if (openai.name !== 'openai') throw new Error('openai provider not created');
    try {
      await createProvider({ provider: 'anthropic', apiKey: 'k', model: 'm' });
      throw new Error('no error for the missing SDK');
    } catch (e) {
      if (!(e instanceof MissingSdkError) || e.code !== 'MISSING_SDK' || e.packageName !== '@anthropic-ai/sdk') throw e;
      console.log(e.message);
    }`;
  const out = sh(process.execPath, ['--input-type=module', '-e', code], runnerDir, { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' });
  if (!out.includes('npm install @anthropic-ai/sdk')) throw new Error(`message does not say what to install: ${out}`);
});

/** The peer libraries (and example-only imports) of @nanobot/ai-sdk and @nanobot/langchain. */
function adapterDeps() {
  const wanted = ['ai', '@ai-sdk/openai', '@langchain/core', 'langchain', 'zod'];
  const found = new Map();
  for (const p of packages) {
    for (const [name, range] of Object.entries({ ...(p.manifest.devDependencies ?? {}), ...(p.manifest.peerDependencies ?? {}) })) {
      if (wanted.includes(name) && !found.has(name) && !String(range).startsWith('workspace:')) found.set(name, range);
    }
  }
  return [...found].map(([n, r]) => `${n}@${r}`);
}

const fullDir = project('everything', 'module');
check('npm install every package, both SDKs, TypeScript and @types/node', () => {
  const sdkRanges = packages.find((p) => p.manifest.name === '@nanobot/providers').manifest.peerDependencies;
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  npmInstall(fullDir, [
    ...tarballs.values(),
    ...Object.entries(sdkRanges).map(([n, r]) => `${n}@${r}`),
    // What the adapters' README examples import (their peers and the AI SDK's OpenAI provider),
    // at the versions the packages test with.
    ...adapterDeps(),
    `typescript@${rootManifest.devDependencies.typescript}`,
    `@types/node@${rootManifest.devDependencies['@types/node']}`,
  ]);
});
check('every package and subpath imports as ESM', () => {
  const specs = packages.flatMap((p) => Object.keys(p.manifest.exports).map((sub) => (sub === '.' ? p.manifest.name : `${p.manifest.name}/${sub.slice(2)}`)));
  const code = `for (const s of ${JSON.stringify(specs)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
  sh(process.execPath, ['--input-type=module', '-e', code], fullDir);
});
check('require() of @nanobot/governor and @nanobot/runner from CommonJS', () => {
  writeFileSync(
    join(fullDir, 'require.cjs'),
    [
      "const { govern } = require('@nanobot/governor');",
      "const { AgentRunner, createAgent } = require('@nanobot/runner');",
      "const { messages } = govern([{ role: 'user', content: 'hi' }]);",
      "if (messages.length !== 1 || typeof AgentRunner !== 'function' || typeof createAgent !== 'function') process.exit(2);",
      "console.log('required ok');",
    ].join('\n'),
  );
  const res = spawnSync(process.execPath, ['require.cjs'], { cwd: fullDir, encoding: 'utf8' });
  if (res.status !== 0 || !res.stdout.includes('required ok')) throw new Error(`exit ${res.status}: ${res.stderr}`);
});

function readmeExamples() {
  const out = [];
  for (const p of packages) {
    const text = readFileSync(join(p.dir, 'README.md'), 'utf8');
    let i = 0;
    for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      i += 1;
      out.push({ file: `${p.manifest.name.slice('@nanobot/'.length)}-${i}.ts`, code: `${m[1]}\nexport {};\n` });
    }
  }
  return out;
}
const examples = readmeExamples();
const examplesDir = join(fullDir, 'examples');
mkdirSync(examplesDir);
for (const e of examples) writeFileSync(join(examplesDir, e.file), e.code);
const tsc = join(fullDir, 'node_modules', 'typescript', 'bin', 'tsc');
for (const [label, options] of [
  ['module node16', { module: 'node16', moduleResolution: 'node16' }],
  ['moduleResolution bundler', { module: 'esnext', moduleResolution: 'bundler' }],
]) {
  check(`${examples.length} README examples type-check under --strict with ${label} against the real SDK types`, () => {
    const config = join(fullDir, `tsconfig.${label.replace(/\W+/g, '-')}.json`);
    writeFileSync(
      config,
      JSON.stringify({ compilerOptions: { ...options, target: 'es2022', lib: ['es2023', 'dom'], types: ['node'], strict: true, noEmit: true, skipLibCheck: false }, include: ['examples/*.ts'] }, null, 2),
    );
    sh(process.execPath, [tsc, '-p', config], fullDir);
  });
}

console.log(
  `install footprint (du -sk node_modules): governor alone ${mb(footprint.governor ?? NaN)} (js-tiktoken ${mb(footprint.tokenizer ?? NaN)}); ` +
    `runner + its @nanobot deps + openai ${mb(footprint.runnerOpenai ?? NaN)} (openai ${mb(footprint.openaiSdk ?? NaN)}; @anthropic-ai/sdk not installed)`,
);
const failed = results.filter((r) => r.status === 'failed').length;
if (values.report) {
  mkdirSync(dirname(values.report), { recursive: true });
  writeFileSync(
    values.report,
    JSON.stringify({
      numPassedTests: results.length - failed,
      numFailedTests: failed,
      success: failed === 0,
      footprintKb: footprint,
      testResults: [{ name: join(root, 'scripts', 'pack-smoke.mjs'), status: failed ? 'failed' : 'passed', assertionResults: results }],
    }, null, 2),
  );
}
if (!values.keep) rmSync(work, { recursive: true, force: true });
console.log(`pack smoke: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
