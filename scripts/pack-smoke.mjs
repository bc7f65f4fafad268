#!/usr/bin/env node
// Installs the packages as a stranger would: builds, `pnpm pack`s every published package into a
// temporary directory, then in plain npm projects outside the repository (no workspace):
//   1. the tarballs: every export is an `import` + `require` pair with its own declarations, all
//      files present, and the packed package.json carries no devDependencies, no scripts, no
//      `workspace:` range and no `source` condition;
//   2. governor alone: install footprint, `import` and `require` (without require(esm));
//   3. runner + @nanobot/providers + openai only: footprint, and createProvider for the missing
//      Anthropic SDK throws MissingSdkError naming `@anthropic-ai/sdk`, from ESM and from CommonJS;
//   4. everything + the openai SDK + TypeScript: every package and subpath imports as ESM and
//      `require()`s as CommonJS with the same exports, on Node 20, 22 and 24 with
//      `--no-experimental-require-module` (CommonJS never leans on require(esm)); a TypeScript
//      consumer (scripts/pack-smoke/consumer.ts) type-checks as CommonJS under `module` node16,
//      nodenext and commonjs and as an ES module under nodenext and bundler, and its compiled
//      CommonJS build (on Node 20, 22, 24) prints what its ES module build prints, byte for byte;
//   5. the same project + @anthropic-ai/sdk: every README's TypeScript example type-checks under
//      --strict with `module: node16` and with `moduleResolution: bundler`, against the real SDK
//      types;
//   6. the current majors: a program on `openai` and `ai` themselves
//      (scripts/pack-smoke/majors-consumer.ts) type-checks the same five ways and runs (ESM, and
//      CommonJS without require(esm)) in the project above with openai 6 / ai 6 / @ai-sdk/openai 3,
//      and in a second project with openai 7 / ai 7 / @ai-sdk/openai 4 (the versions of the npm
//      aliases in the packages' devDependencies) on Node 22 and 24; both print the same line.
// Node 22 and 24 come from the npm registry's `node` package (as in scripts/test-on-node.mjs).
// `npm pack` is not supported: it leaves `workspace:*` in the tarball; `pnpm pack` rewrites it
// to the version, applies `publishConfig.exports` and runs .pnpmfile.cjs's beforePacking.
// Usage: node scripts/pack-smoke.mjs [--report file.json] [--keep]
// Prints the footprints; with --report writes the checks as a vitest-shaped JSON report.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  let failure;
  try {
    fn();
  } catch (error) {
    failure = { error };
  }
  const { line, result } = outcome(name, start, failure?.error, failure !== undefined);
  results.push(result);
  console.log(line);
}

/** One check's outcome: the line printed and the result recorded (`failed` even for a thrown `undefined`). */
function outcome(name, start, error, failed) {
  if (!failed) return { line: `  ✓ ${name} (${((Date.now() - start) / 1000).toFixed(1)} s)`, result: { fullName: name, status: 'passed', duration: Date.now() - start } };
  const message = String(error?.stderr ?? '') + String(error?.stdout ?? '') + String(error?.message ?? error);
  return {
    line: `  ✗ ${name} (${((Date.now() - start) / 1000).toFixed(1)} s)\n${message.split('\n').slice(0, 40).map((l) => `      ${l}`).join('\n')}`,
    result: { fullName: name, status: 'failed', duration: Date.now() - start, failureMessages: [message] },
  };
}
/**
 * Runs independent async checks `width` at a time (the type-checks: one tsc per core instead of
 * one after another), then records them in the order given, so the output reads as if sequential.
 */
async function checksInParallel(entries, width = 2) {
  const done = new Array(entries.length);
  let next = 0;
  async function lane() {
    while (next < entries.length) {
      const i = next++;
      const start = Date.now();
      try {
        await entries[i][1]();
        done[i] = outcome(entries[i][0], start, undefined, false);
      } catch (error) {
        done[i] = outcome(entries[i][0], start, error, true);
      }
    }
  }
  await Promise.all(Array.from({ length: width }, lane));
  for (const { line, result } of done) {
    results.push(result);
    console.log(line);
  }
}

/** `spawnSync`'s result shape, without blocking: parallel checks run their processes through this. */
function spawnAsync(cmd, args, options) {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', rejectRun);
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });
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
  // Through the quiet build: when the test command (or CI) built them already, nothing is rebuilt
  // or replayed from turbo's cache, so the pack smoke test can run beside suites that load dist/.
  sh(process.execPath, [join(root, 'scripts', 'quiet-build.mjs'), `--packages=${packages.map((p) => p.manifest.name).join(',')}`], root);
});
check('pnpm pack every package', () => {
  // One recursive pnpm (not one per package): each start of pnpm reads the whole workspace.
  sh(pnpm, ['-r', ...packages.map((p) => `--filter=${p.manifest.name}`), 'pack', '--pack-destination', tarDir], root);
  for (const file of readdirSync(tarDir).filter((f) => f.endsWith('.tgz'))) {
    const { name } = JSON.parse(sh('tar', ['-xzOf', join(tarDir, file), 'package/package.json'], work));
    tarballs.set(name, join(tarDir, file));
  }
  const missing = packages.map((p) => p.manifest.name).filter((n) => !tarballs.has(n));
  if (missing.length) throw new Error(`no tarball for ${missing.join(', ')}`);
});
/** The conditions a published entry must have: each module system with its own declarations. */
const DUAL_SHAPE = { import: ['types', 'default'], require: ['types', 'default'] };
const EXTENSIONS = { import: { types: '.d.ts', default: '.js' }, require: { types: '.d.cts', default: '.cjs' } };
/** What is wrong with one export entry of `name`'s tarball (its files: `listing`). */
function entryProblems(name, sub, entry, listing) {
  const problems = [];
  const shape = Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, Object.keys(v ?? {})]));
  if (JSON.stringify(shape) !== JSON.stringify(DUAL_SHAPE)) problems.push(`${name} ${sub}: conditions ${JSON.stringify(shape)}`);
  for (const [kind, targets] of Object.entries(entry)) {
    for (const [cond, target] of Object.entries(targets ?? {})) {
      if (!String(target).endsWith(EXTENSIONS[kind]?.[cond] ?? '?')) problems.push(`${name} ${sub}: ${kind}.${cond} is ${target}`);
      if (!listing.includes(`package/${String(target).replace(/^\.\//, '')}`)) problems.push(`${name} ${sub}: ${target} not in tarball`);
    }
  }
  return problems;
}
check('tarballs: every export an import + require pair with its own declarations, all shipped with README, CHANGELOG, LICENSE', () => {
  const problems = [];
  for (const [name, file] of tarballs) {
    const manifest = JSON.parse(sh('tar', ['-xzOf', file, 'package/package.json'], work));
    const listing = sh('tar', ['-tzf', file], work).split('\n');
    for (const [sub, exported] of Object.entries(manifest.exports ?? {})) {
      // A leading `node` condition (Node's own build of an entry) is itself an import + require pair.
      const { node, ...rest } = exported;
      for (const entry of node === undefined ? [rest] : [node, rest]) problems.push(...entryProblems(name, sub, entry, listing));
    }
    for (const field of ['main', 'module', 'types']) if (!listing.includes(`package/${String(manifest[field]).replace(/^\.\//, '')}`)) problems.push(`${name}: ${field} ${manifest[field]} not in tarball`);
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json']) if (!listing.includes(`package/${f}`)) problems.push(`${name}: ${f} missing`);
    const stray = listing.filter((f) => /\.test\.|\/src\/|test-support|\.map$/.test(f));
    if (stray.length) problems.push(`${name}: ships ${stray.slice(0, 5).join(', ')}`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
});
check('packed package.json files: no devDependencies, no scripts, no workspace: range, no source condition, nothing private', () => {
  const problems = [];
  for (const [name, file] of tarballs) {
    const manifest = JSON.parse(sh('tar', ['-xzOf', file, 'package/package.json'], work));
    const text = JSON.stringify(manifest);
    if ('devDependencies' in manifest) problems.push(`${name}: devDependencies published (${Object.keys(manifest.devDependencies).join(', ')})`);
    if ('scripts' in manifest) problems.push(`${name}: scripts published (${Object.keys(manifest.scripts).join(', ')})`);
    if (text.includes('workspace:')) problems.push(`${name}: workspace: range left in the tarball`);
    if (text.includes('"source"')) problems.push(`${name}: source condition published`);
    if (text.includes('@nanobot-internal/')) problems.push(`${name}: names an unpublished @nanobot-internal package`);
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (dep.startsWith('@nanobot/') && !tarballs.has(dep)) problems.push(`${name}: depends on ${dep}, which is not published`);
    }
  }
  if (problems.length) throw new Error(problems.join('\n'));
});

// --- Node majors ------------------------------------------------------------------------------
/** node binaries by major: this one, and 22 and 24 from the npm registry's `node` package. */
const nodes = new Map([[process.versions.node.split('.')[0], process.execPath]]);
check('Node 22 and 24 from the npm registry', () => {
  for (const major of ['22', '24']) {
    if (nodes.has(major)) continue;
    nodes.set(major, sh('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], work).trim());
  }
});
/** Runs `args` with every node (CommonJS may not reach ESM through require()); returns stdout per major. */
function onEveryNode(args, cwd, env = {}) {
  const out = new Map();
  for (const [major, bin] of nodes) {
    const res = spawnSync(bin, ['--no-experimental-require-module', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
    if (res.status !== 0) throw new Error(`Node ${major}: exit ${res.status}\n${res.stderr}${res.stdout}`);
    out.set(major, res.stdout);
  }
  return out;
}

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
check('the governor alone: require() on Node 20, 22 and 24 without require(esm), counting with the real tokenizer', () => {
  writeFileSync(
    join(governorDir, 'require.cjs'),
    [
      "const { govern } = require('@nanobot/governor');",
      "const { countTokens } = require('@nanobot/schema');",
      "const { messages } = govern([{ role: 'user', content: 'hi' }]);",
      "console.log(JSON.stringify({ messages: messages.length, tokens: countTokens('Hello, governed world!') }));",
    ].join('\n'),
  );
  for (const [major, out] of onEveryNode(['require.cjs'], governorDir)) {
    // 5 cl100k tokens; a tokenizer that failed to load would count bytes instead.
    if (out.trim() !== '{"messages":1,"tokens":5}') throw new Error(`Node ${major}: ${out}`);
  }
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
  // The same from CommonJS: the provider module and its SDK load through require() there.
  writeFileSync(join(runnerDir, 'missing.cjs'), `(async () => {\n${code.replaceAll('await import(', 'require(')}\n})().catch((e) => { console.error(e); process.exit(1); });\n`);
  for (const [major, cjsOut] of onEveryNode(['missing.cjs'], runnerDir, { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' })) {
    if (cjsOut !== out) throw new Error(`Node ${major}, CommonJS printed ${JSON.stringify(cjsOut)}, ESM ${JSON.stringify(out)}`);
  }
});

/**
 * The peer libraries (and example-only imports) of @nanobot/ai-sdk and @nanobot/langchain, at
 * the versions the packages test with (their devDependencies: `openai` 6, `ai` 6); the peer
 * ranges also admit the current majors, which the `current-majors` project installs.
 */
function adapterDeps() {
  const wanted = ['ai', '@ai-sdk/openai', '@langchain/core', 'langchain', 'zod'];
  const found = new Map();
  for (const p of packages) {
    for (const [name, range] of Object.entries({ ...(p.manifest.peerDependencies ?? {}), ...(p.manifest.devDependencies ?? {}) })) {
      if (wanted.includes(name) && !found.has(name) && !String(range).startsWith('workspace:')) found.set(name, range);
    }
  }
  return [...found].map(([n, r]) => `${n}@${r}`);
}
/** The provider SDKs at the versions @nanobot/providers tests with (its devDependencies). */
function sdkDeps() {
  const { peerDependencies, devDependencies } = packages.find((p) => p.manifest.name === '@nanobot/providers').manifest;
  return Object.keys(peerDependencies).map((n) => `${n}@${devDependencies[n] ?? peerDependencies[n]}`);
}
/** `name@version` of the package an npm alias devDependency (`"openai-v7": "npm:openai@7.59.0"`) holds. */
function aliased(packageName, alias) {
  const spec = packages.find((p) => p.manifest.name === packageName).manifest.devDependencies[alias];
  if (!spec?.startsWith('npm:')) throw new Error(`${packageName} has no devDependency ${alias} of the form npm:<name>@<version>`);
  return spec.slice('npm:'.length);
}

const fullDir = project('everything', 'module');
check('npm install every package, both SDKs, TypeScript and @types/node', () => {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  npmInstall(fullDir, [
    ...tarballs.values(),
    ...sdkDeps(),
    // What the adapters' README examples import (their peers and the AI SDK's OpenAI provider),
    // at the versions the packages test with.
    ...adapterDeps(),
    `typescript@${rootManifest.devDependencies.typescript}`,
    `@types/node@${rootManifest.devDependencies['@types/node']}`,
  ]);
});
const specs = packages.flatMap((p) => Object.keys(p.manifest.exports).map((sub) => (sub === '.' ? p.manifest.name : `${p.manifest.name}/${sub.slice(2)}`)));
check('every package and subpath imports as ESM', () => {
  const code = `for (const s of ${JSON.stringify(specs)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
  sh(process.execPath, ['--input-type=module', '-e', code], fullDir);
});
check(`every package and subpath require()s with the exports of its ESM build, on Node ${[...nodes.keys()].join(', ')} without require(esm)`, () => {
  const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort().join(',');
  const esm = sh(process.execPath, ['--input-type=module', '-e', `const out = {}; for (const s of ${JSON.stringify(specs)}) out[s] = (${names})(await import(s)); console.log(JSON.stringify(out));`], fullDir);
  writeFileSync(join(fullDir, 'require-all.cjs'), `const out = {}; for (const s of ${JSON.stringify(specs)}) out[s] = (${names})(require(s)); console.log(JSON.stringify(out));\n`);
  for (const [major, cjs] of onEveryNode(['require-all.cjs'], fullDir)) {
    if (cjs === esm) continue;
    const [a, b] = [JSON.parse(esm), JSON.parse(cjs)];
    throw new Error(`Node ${major}: ${specs.filter((x) => a[x] !== b[x]).map((x) => `${x}: ESM ${a[x]} vs CJS ${b[x]}`).join('\n')}`);
  }
});

// A TypeScript user's program (scripts/pack-smoke/consumer.ts), once as CommonJS, once as ESM.
const consumerSource = readFileSync(join(root, 'scripts', 'pack-smoke', 'consumer.ts'), 'utf8');
// A program on `openai` and `ai` themselves (scripts/pack-smoke/majors-consumer.ts): built here
// against openai 6 / ai 6, and in the `current-majors` project against openai 7 / ai 7.
const majorsSource = readFileSync(join(root, 'scripts', 'pack-smoke', 'majors-consumer.ts'), 'utf8');
const transcript = join(root, 'fixtures', 'transcripts', 'All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json');
/** `dir`/cjs and `dir`/esm: the same sources as a CommonJS and as an ES module package. */
function consumerDirs(dir, files) {
  for (const [kind, type] of [['cjs', 'commonjs'], ['esm', 'module']]) {
    mkdirSync(join(dir, kind));
    writeFileSync(join(dir, kind, 'package.json'), JSON.stringify({ type }, null, 2));
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, kind, name), source);
  }
}
consumerDirs(fullDir, { 'consumer.ts': consumerSource, 'majors-consumer.ts': majorsSource });
copyFileSync(transcript, join(fullDir, 'transcript.json'));
const tscOf = (dir) => join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
/**
 * Type-checks (and with `outDir`, compiles) `dir`'s files under `options`: strict, and with the
 * libraries' declarations checked too (`skipLibCheck: false` unless `options` say otherwise), so
 * an error in our `.d.ts`/`.d.cts` fails. Errors inside third-party declarations are theirs (e.g. @langchain/core's own `.d.cts`
 * imports the ESM-only js-tiktoken under node16): printed, not failed on.
 */
async function typecheck(dir, label, options, include, tsc = tscOf(fullDir)) {
  const config = join(dir, `tsconfig.${label.replace(/\W+/g, '-')}.json`);
  const compilerOptions = { target: 'es2022', lib: ['es2023', 'dom'], types: ['node'], strict: true, skipLibCheck: false, ...(options.outDir ? {} : { noEmit: true }), ...options };
  writeFileSync(config, JSON.stringify({ compilerOptions, include }, null, 2));
  const res = await spawnAsync(process.execPath, [tsc, '-p', config], { cwd: dir });
  if (res.status === 0) return;
  const errors = res.stdout.split('\n').filter((l) => /^\S.*\(\d+,\d+\): error TS/.test(l));
  const theirs = errors.filter((l) => /node_modules\//.test(l) && !/node_modules\/@nanobot\//.test(l));
  if (errors.length === 0 || theirs.length < errors.length) throw new Error(res.stdout + res.stderr);
  const packagesWithErrors = [...new Set(theirs.map((l) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(l)[1]))];
  console.log(`      (${theirs.length} error(s) inside third-party declarations, not ours: ${packagesWithErrors.join(', ')})`);
}
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
mkdirSync(join(fullDir, 'examples'));
for (const e of examples) writeFileSync(join(fullDir, 'examples', e.file), e.code);

// A tsc run that checks the libraries' declarations costs ~27 s of CPU (the SDKs' are large), one
// that skips them ~8 s. Our .d.cts files are checked in full under node16 and our .d.ts files
// under bundler (together with the README examples, in one run) and node16; the other runs check
// how the consumer's imports resolve and type, with skipLibCheck. node16 is also the one CommonJS
// mode where reaching an ES module's types fails (TS1479 in consumer.ts): TypeScript 6 lets
// nodenext `require` ESM (as Node 22 does), and commonjs + bundler does not ask.
const CJS = 'a CommonJS TypeScript consumer of every package and subpath';
const ESM = 'an ESM TypeScript consumer of every package and subpath';
const EXAMPLES = `${examples.length} README examples`;
// Every run also compiles the majors consumer (against openai 6 and ai 6 in this project).
const BOTH = ['consumer.ts', 'majors-consumer.ts'];
await checksInParallel([
  [CJS, 'cjs', 'module node16', { module: 'node16', moduleResolution: 'node16', outDir: 'out-node16' }, BOTH],
  [CJS, 'cjs', 'module nodenext', { module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true }, BOTH],
  [CJS, 'cjs', 'module commonjs', { module: 'commonjs', moduleResolution: 'bundler', skipLibCheck: true }, BOTH],
  [ESM, 'esm', 'module nodenext', { module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out-nodenext', skipLibCheck: true }, BOTH],
  [`${ESM} and ${EXAMPLES}`, '.', 'moduleResolution bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['esm/consumer.ts', 'esm/majors-consumer.ts', 'examples/*.ts']],
  [EXAMPLES, '.', 'module node16', { module: 'node16', moduleResolution: 'node16' }, ['examples/*.ts']],
].map(([name, dir, label, options, include]) => {
  const against = options.skipLibCheck ? '' : ' against the real SDK types (declarations checked)';
  return [`${name} type-check${name.endsWith(EXAMPLES) ? '' : 's'} under --strict with ${label}${against}`, () => typecheck(join(fullDir, dir), label, options, include)];
}));
check(`the compiled CommonJS consumer prints on Node ${[...nodes.keys()].join(', ')} (without require(esm)) what the ESM one prints`, () => {
  const esm = sh(process.execPath, [join(fullDir, 'esm', 'out-nodenext', 'consumer.js'), join(fullDir, 'transcript.json')], fullDir);
  const line = JSON.parse(esm);
  // The tokenizer really loaded (a failed load counts bytes: 22 for this text).
  if (line.tokens.cl100k !== 5 || line.tokens.o200k !== 5 || line.agent.content !== 'Your list says: buy milk.') throw new Error(`unexpected ESM output: ${esm}`);
  for (const [major, cjs] of onEveryNode([join(fullDir, 'cjs', 'out-node16', 'consumer.js'), join(fullDir, 'transcript.json')], fullDir)) {
    if (cjs !== esm) throw new Error(`Node ${major}:\nCommonJS ${cjs}\nESM      ${esm}`);
  }
  console.log(`      ${esm.trim().slice(0, 160)}…`);
});

// --- the current majors: openai 7, ai 7 (Node 22) ----------------------------------------------
/**
 * Runs the compiled majors consumer of `dir`: the ES module build on `esmNode`, the CommonJS one
 * on each of `cjsNodes` without require(esm); all must print the same line. Returns it.
 */
function runMajorsConsumer(dir, esmNode, cjsNodes) {
  const esm = sh(nodes.get(esmNode), [join(dir, 'esm', 'out-nodenext', 'majors-consumer.js')], dir);
  const line = JSON.parse(esm);
  // The raw history is refused, the governed one accepted; the middleware and
  // governModelMessages put the same messages on the wire.
  if (line.ai.raw !== 'refused' || !line.ai.governModelMessages.sameAsMiddleware || line.ai.middleware.reply !== 'reply 4' || line.requests !== 5) {
    throw new Error(`unexpected output: ${esm}`);
  }
  for (const major of cjsNodes) {
    const res = spawnSync(nodes.get(major), ['--no-experimental-require-module', join(dir, 'cjs', 'out-node16', 'majors-consumer.js')], { cwd: dir, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`Node ${major}: exit ${res.status}\n${res.stderr}${res.stdout}`);
    if (res.stdout !== esm) throw new Error(`Node ${major}:\nCommonJS ${res.stdout}\nESM      ${esm}`);
  }
  return esm;
}
let majorsLine6;
check(`the majors consumer on openai 6 and ai 6: its ESM and CommonJS builds (Node ${[...nodes.keys()].join(', ')}, no require(esm)) print the same line`, () => {
  majorsLine6 = runMajorsConsumer(fullDir, process.versions.node.split('.')[0], [...nodes.keys()]);
  console.log(`      ${majorsLine6.trim().slice(0, 160)}…`);
});

// openai 7 and ai 7 declare Node >= 22: the project is installed by this npm (engines are only
// advisory to it) and its programs run on Node 22 and 24.
const majorsDir = project('current-majors', 'module');
const current = [aliased('@nanobot/providers', 'openai-v7'), aliased('@nanobot/ai-sdk', 'ai-v7'), aliased('@nanobot/ai-sdk', 'ai-sdk-openai-v4')];
check(`npm install @nanobot/ai-sdk and @nanobot/providers with ${current.join(', ')}, TypeScript and @types/node`, () => {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const ours = new Set([...closure('@nanobot/ai-sdk'), ...closure('@nanobot/providers')]);
  npmInstall(majorsDir, [
    ...[...ours].map((n) => tarballs.get(n)),
    ...current,
    adapterDeps().find((d) => d.startsWith('zod@')),
    `typescript@${rootManifest.devDependencies.typescript}`,
    `@types/node@${rootManifest.devDependencies['@types/node']}`,
  ]);
  for (const [name, want] of current.map((c) => c.split(/(?<=.)@/))) {
    const got = JSON.parse(readFileSync(join(majorsDir, 'node_modules', name, 'package.json'), 'utf8')).version;
    if (got !== want) throw new Error(`${name} ${got} installed, ${want} wanted`);
  }
  consumerDirs(majorsDir, { 'majors-consumer.ts': majorsSource });
});
const MAJORS_CJS = 'a CommonJS TypeScript consumer of openai 7, ai 7, @nanobot/ai-sdk and @nanobot/providers';
const MAJORS_ESM = 'an ESM TypeScript consumer of openai 7, ai 7, @nanobot/ai-sdk and @nanobot/providers';
await checksInParallel([
  [MAJORS_CJS, 'cjs', 'module node16', { module: 'node16', moduleResolution: 'node16', outDir: 'out-node16' }],
  [MAJORS_CJS, 'cjs', 'module nodenext', { module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true }],
  [MAJORS_CJS, 'cjs', 'module commonjs', { module: 'commonjs', moduleResolution: 'bundler', skipLibCheck: true }],
  [MAJORS_ESM, 'esm', 'module nodenext', { module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out-nodenext', skipLibCheck: true }],
  // Declarations are checked once (node16, our .d.cts with ai 7's ESM-only types): the full check
  // costs ~3x a skipLibCheck run, and the .d.ts names ai's types with the same import.
  [MAJORS_ESM, 'esm', 'moduleResolution bundler', { module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true }],
].map(([name, dir, label, options]) => {
  const against = options.skipLibCheck ? '' : ' against the real SDK types (declarations checked)';
  return [`${name} type-checks under --strict with ${label}${against}`, () => typecheck(join(majorsDir, dir), label, options, ['majors-consumer.ts'], tscOf(majorsDir))];
}));
check('the majors consumer on openai 7 and ai 7: its ESM (Node 22) and CommonJS builds (Node 22, 24, no require(esm)) print the line openai 6 and ai 6 print', () => {
  const line7 = runMajorsConsumer(majorsDir, '22', ['22', '24']);
  if (line7 !== majorsLine6) throw new Error(`openai 7 / ai 7: ${line7}\nopenai 6 / ai 6: ${majorsLine6}`);
});

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
