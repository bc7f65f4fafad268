// Runs one page bundle in headless Chromium through playwright-core:
// `node browser-host.mjs <dir> <program>...` serves <dir> (index.html, the bundle and its chunks,
// `<program>.json` inputs) on 127.0.0.1, opens it in Debian's Chromium (or NANOBOT_CHROMIUM) with a
// fresh profile, calls each program on the page and prints `{ programs: { <program>: envelope &
// { ms } }, userAgent }` as JSON. A page that fails to load its script gives every program
// `{ ok: false, stage: 'load' }` with the page errors.
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.NANOBOT_CHROMIUM ?? '/usr/bin/chromium';
// The flags of the machine notes: no background connections (this machine's network is closed).
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.map': 'application/json' };

const [dir = '.', ...programs] = process.argv.slice(2);
const every = (envelope) => Object.fromEntries(programs.map((p) => [p, envelope]));
if (!existsSync(CHROMIUM)) {
  process.stdout.write(JSON.stringify({ programs: every({ ok: false, stage: 'setup', error: `Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set NANOBOT_CHROMIUM)` }) }));
  process.exit(0);
}
const server = createServer((req, res) => {
  const file = join(dir, normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, ''));
  if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
const profile = mkdtempSync(join(tmpdir(), 'nanobot-runtimes-chromium-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS });
let result;
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(`${e.name}: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/index.html`);
  const ready = await page.waitForFunction(() => globalThis.__nanobotReady === true, null, { timeout: 30_000 }).then(() => true, () => false);
  result = { programs: /** @type {Record<string, unknown>} */ ({}), userAgent: '' };
  if (!ready) result.programs = every({ ok: false, stage: 'load', error: problems.join('; ') || 'the page script never became ready' });
  for (const p of ready ? programs : []) {
    const started = Date.now();
    result.programs[p] = { ...JSON.parse(await page.evaluate((name) => globalThis.__nanobotRun(name), p)), ms: Date.now() - started };
  }
  result.userAgent = await page.evaluate(() => navigator.userAgent);
} finally {
  await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(result));
