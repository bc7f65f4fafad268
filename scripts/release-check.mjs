#!/usr/bin/env node
// The release path, checked without changing the repository:
//   1. `changeset version` on a throwaway copy (git's tracked and untracked-not-ignored files):
//      it must consume every pending changeset, bump the packages and write their CHANGELOGs;
//   2. `pnpm publish --dry-run -r --no-git-checks` in the repository: every published package
//      packs and would publish (needs a prior build).
// Usage: node scripts/release-check.mjs [--report file.json]
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { report: { type: 'string' } } });
const results = [];
function check(name, fn) {
  const start = Date.now();
  try {
    fn();
    results.push({ fullName: name, status: 'passed', duration: Date.now() - start });
    console.log(`  ✓ ${name}`);
  } catch (error) {
    const message = String(error?.stderr ?? '') + String(error?.stdout ?? '') + String(error?.message ?? error);
    results.push({ fullName: name, status: 'failed', duration: Date.now() - start, failureMessages: [message] });
    console.log(`  ✗ ${name}\n${message.split('\n').slice(-30).map((l) => `      ${l}`).join('\n')}`);
  }
}
const published = readdirSync(join(root, 'packages'))
  .filter((n) => existsSync(join(root, 'packages', n, 'package.json')))
  .map((n) => ({ dir: `packages/${n}`, manifest: JSON.parse(readFileSync(join(root, 'packages', n, 'package.json'), 'utf8')) }))
  .filter((p) => p.manifest.private !== true);

const copy = mkdtempSync(join(tmpdir(), 'nanobot-release-'));
check('changeset version on a throwaway copy bumps the packages and writes their CHANGELOGs', () => {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(root, f))) continue;
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    copyFileSync(join(root, f), join(copy, f));
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const pending = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (pending.length === 0) throw new Error('no pending changesets to version');
  execFileSync(process.execPath, [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], { cwd: copy, stdio: 'pipe', encoding: 'utf8' });
  const problems = [];
  // Changesets naming only the ignored private apps stay, as changesets keeps them by design.
  const names = new Set(published.map((p) => p.manifest.name));
  const left = readdirSync(join(copy, '.changeset'))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .filter((f) => [...readFileSync(join(copy, '.changeset', f), 'utf8').matchAll(/^["']?(@nanobot\/[\w-]+)["']?\s*:/gm)].some((m) => names.has(m[1])));
  if (left.length) problems.push(`changesets naming published packages not consumed: ${left.join(', ')}`);
  for (const p of published) {
    const after = JSON.parse(readFileSync(join(copy, p.dir, 'package.json'), 'utf8'));
    if (after.version === p.manifest.version) problems.push(`${p.manifest.name}: version not bumped (${after.version})`);
    const changelog = readFileSync(join(copy, p.dir, 'CHANGELOG.md'), 'utf8');
    if (!changelog.includes(`## ${after.version}`)) problems.push(`${p.manifest.name}: CHANGELOG.md has no ## ${after.version} section`);
    for (const [dep, range] of Object.entries(after.dependencies ?? {})) if (dep.startsWith('@nanobot/') && range !== 'workspace:*') problems.push(`${p.manifest.name}: ${dep} became ${range}`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`    versions after: ${[...new Set(published.map((p) => JSON.parse(readFileSync(join(copy, p.dir, 'package.json'), 'utf8')).version))].join(', ')} from ${pending.length} changesets`);
});
rmSync(copy, { recursive: true, force: true });

check('pnpm publish --dry-run -r --no-git-checks would publish every package', () => {
  const res = spawnSync(join(root, 'node_modules', '.bin', 'pnpm'), ['publish', '--dry-run', '-r', '--no-git-checks'], { cwd: root, encoding: 'utf8' });
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) throw new Error(`exit ${res.status}\n${out}`);
  const missing = published.filter((p) => !out.includes(`+ ${p.manifest.name}@${p.manifest.version}`)).map((p) => p.manifest.name);
  if (missing.length) throw new Error(`not in the dry run: ${missing.join(', ')}\n${out.slice(-3000)}`);
});

const failed = results.filter((r) => r.status === 'failed').length;
if (values.report) {
  mkdirSync(dirname(values.report), { recursive: true });
  writeFileSync(values.report, JSON.stringify({ numPassedTests: results.length - failed, numFailedTests: failed, success: failed === 0, testResults: [{ name: join(root, 'scripts', 'release-check.mjs'), status: failed ? 'failed' : 'passed', assertionResults: results }] }, null, 2));
}
console.log(`release check: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
