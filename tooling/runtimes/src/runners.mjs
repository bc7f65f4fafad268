// One runner per runtime: how a user of that runtime gets the packages running, then the programs.
// Every runner returns `{ version, programs: { <name>: envelope & { ms } } }`, where an envelope
// is `{ ok: true, text, probe }` or `{ ok: false, stage, error }` with stage `bundle` (the
// runtime's bundler refused the code), `load` (the runtime refused to load it), `run` (it threw)
// or `crash` (the process died).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { bundle, summarizeErrors } from './bundle.mjs';
import { writeEntry } from './entries.mjs';
import { engines, nodeBinary } from './engines.mjs';
import { runtimesDir } from './paths.mjs';
import { killGroup, run, start, tail } from './spawn.mjs';

/** Runs several programs in one process of a runtime that imports ESM from node_modules. */
async function cliRunner(binary, args, ctx, env = process.env) {
  const res = await run(binary, [...args, 'programs/cli-entry.mjs', ctx.inputsDir, ...ctx.programs], { cwd: ctx.consumer, env, timeoutMs: ctx.timeoutMs });
  let parsed = null;
  try {
    parsed = JSON.parse(res.stdout);
  } catch {
    // handled below: a crash
  }
  const programs = {};
  for (const name of ctx.programs) {
    programs[name] = parsed?.[name] ?? { ok: false, stage: 'crash', error: res.timedOut ? `timed out after ${ctx.timeoutMs / 1000} s` : `exit ${res.code ?? res.signal}: ${tail(res.stderr)}` };
  }
  return programs;
}

async function versionOf(binary, args = ['--version']) {
  const res = await run(binary, args, { timeoutMs: 60_000 });
  return res.stdout.split('\n')[0].trim();
}

const nodeRunner = (major) => ({
  id: `node${major}`,
  label: `Node ${major}${major === 20 ? ' (baseline)' : ''}`,
  how: 'unbundled ESM from node_modules',
  async run(ctx) {
    const bin = nodeBinary(major);
    return { version: await versionOf(bin), programs: await cliRunner(bin, [], ctx) };
  },
});

const bun = {
  id: 'bun',
  label: 'Bun',
  how: 'bun runs the ESM from node_modules (no bundle)',
  async run(ctx) {
    const bin = engines.bun();
    const env = { ...process.env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0', DO_NOT_TRACK: '1' };
    return { version: `bun ${await versionOf(bin)}`, programs: await cliRunner(bin, [], ctx, env) };
  },
};

const deno = {
  id: 'deno',
  label: 'Deno',
  how: 'deno run with the project\'s package.json + node_modules, read permission for the work dir and env access (the openai and Anthropic SDKs read their variables, as a Deno user of them grants)',
  async run(ctx) {
    const bin = engines.deno();
    const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(ctx.work, 'deno-dir') };
    const args = ['run', '--no-prompt', `--allow-read=${ctx.work}`, '--allow-env'];
    return { version: await versionOf(bin), programs: await cliRunner(bin, args, ctx, env) };
  },
};

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** Waits until `port` answers HTTP or the process exits; true when it answers. */
async function waitForServer(port, exited, timeoutMs) {
  let gone = false;
  exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!gone && Date.now() < deadline) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD', signal: AbortSignal.timeout(2_000) });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return false;
}

const capnpString = (s) => JSON.stringify(s);

/**
 * A Worker: wrangler builds it (`wrangler deploy --dry-run --outdir`: the artefact a deploy
 * uploads) and the workerd binary serves it with the given compatibility flags at the newest
 * compatibility date this workerd supports (what a new Worker gets). One Worker holds every
 * program (one build, one server); each program is one request.
 */
const workerdRunner = ({ id, label, flags }) => ({
  id,
  label,
  how: `wrangler build, workerd serve, compatibility_flags ${JSON.stringify(flags)}`,
  async run(ctx) {
    const w = engines.workerd();
    const node22 = nodeBinary(22); // wrangler needs Node >= 22.12
    const version = `workerd ${w.version} (compatibility date ${w.compatibilityDate}), wrangler ${engines.wranglerVersion()}`;
    const started = Date.now();
    const every = (envelope) => Object.fromEntries(ctx.programs.map((p) => [p, { ...envelope, ms: Date.now() - started }]));
    const dir = join(ctx.work, id);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const main = writeEntry(ctx.consumer, 'workerd', ctx.programs);
    writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ name: 'nanobot-runtimes', main, compatibility_date: w.compatibilityDate, compatibility_flags: flags }, null, 2));
    const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', XDG_CONFIG_HOME: join(ctx.work, 'xdg-config'), NO_COLOR: '1' };
    const built = await run(node22, [engines.wrangler(), 'deploy', '--dry-run', '--outdir', 'out', '--config', 'wrangler.json'], { cwd: dir, env, timeoutMs: ctx.timeoutMs });
    const outFiles = built.code === 0 ? readdirSync(join(dir, 'out')).filter((f) => /\.(m?js|wasm)$/.test(f)) : [];
    const mainFile = outFiles.find((f) => f.startsWith('entry-workerd.'));
    if (!mainFile) return { version, programs: every({ ok: false, stage: 'bundle', error: `wrangler: ${tail(built.stdout + built.stderr)}` }) };
    const warnings = (built.stdout + built.stderr).split('\n').filter((l) => /▲|\[WARNING\]/.test(l));
    const port = await freePort();
    const modules = [mainFile, ...outFiles.filter((f) => f !== mainFile)]
      .map((f) => `(name = ${capnpString(f)}, ${f.endsWith('.wasm') ? 'wasm' : 'esModule'} = embed ${capnpString(`out/${f}`)})`)
      .join(', ');
    writeFileSync(
      join(dir, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules} ],
  compatibilityDate = ${capnpString(w.compatibilityDate)},
  compatibilityFlags = [ ${flags.map(capnpString).join(', ')} ],
);
`,
    );
    const server = start(w.binary, ['serve', 'config.capnp'], { cwd: dir });
    try {
      if (!(await waitForServer(port, server.exited, 60_000))) return { version, programs: every({ ok: false, stage: 'load', error: `workerd: ${tail(server.output(), 3)}` }) };
      const programs = {};
      for (const program of ctx.programs) {
        const begun = Date.now();
        const res = await fetch(`http://127.0.0.1:${port}/${program}`, { method: 'POST', body: ctx.inputs[program], signal: AbortSignal.timeout(ctx.timeoutMs) });
        const body = await res.text();
        let envelope;
        try {
          envelope = JSON.parse(body);
        } catch {
          envelope = { ok: false, stage: 'run', error: `HTTP ${res.status}: ${body.slice(0, 300)} ${tail(server.output(), 3)}` };
        }
        programs[program] = { ...envelope, ...(warnings.length ? { bundleWarnings: warnings } : {}), ms: Date.now() - begun };
      }
      return { version, programs };
    } finally {
      killGroup(server.child);
      await server.exited;
    }
  },
});

/**
 * Bundles every program into one entry with esbuild for `target`, then runs the bundle once with
 * `host(dir, file)`, which answers `{ <program>: envelope & { ms } }` as JSON on stdout.
 */
async function bundledPrograms(ctx, { id, kind, target, stubNode, host }) {
  const started = Date.now();
  const every = (envelope) => Object.fromEntries(ctx.programs.map((p) => [p, { ...envelope, ms: Date.now() - started }]));
  const dir = join(ctx.work, id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const entry = writeEntry(ctx.consumer, kind, ctx.programs);
  const built = await bundle({ entry, outdir: dir, target, stubNode });
  if (!built.ok) return every({ ok: false, stage: 'bundle', error: `esbuild: ${summarizeErrors(built.errors)}` });
  const res = await host(dir, `entry-${kind}.js`);
  try {
    return JSON.parse(res.stdout);
  } catch {
    return every({ ok: false, stage: 'crash', error: res.timedOut ? 'timed out' : `exit ${res.code}: ${tail(res.stderr)}` });
  }
}

const edgeRunner = ({ stubNode = false } = {}) => ({
  id: stubNode ? 'edge-runtime-stubbed' : 'edge-runtime',
  label: `Vercel edge-runtime${stubNode ? ' (node:* stubbed, diagnosis)' : ''}`,
  how: `esbuild (browser platform, edge-light/worker/browser conditions, one script${stubNode ? ', node:* → empty modules' : ''}), EdgeVM`,
  diagnosis: stubNode,
  async run(ctx) {
    const entry = engines.edgeRuntime();
    const programs = await bundledPrograms(ctx, {
      id: this.id,
      kind: 'edge',
      target: 'edge',
      stubNode,
      host: (dir, file) => run(process.execPath, [join(runtimesDir, 'src', 'hosts', 'edge-host.mjs'), entry, join(dir, file), ctx.inputsDir, ...ctx.programs], { timeoutMs: ctx.timeoutMs }),
    });
    return { version: `edge-runtime ${engines.edgeRuntimeVersion()} on Node ${process.versions.node}`, programs };
  },
});

const chromiumRunner = ({ stubNode = false } = {}) => ({
  id: stubNode ? 'chromium-stubbed' : 'chromium',
  label: `Chromium${stubNode ? ' (node:* stubbed, diagnosis)' : ''}`,
  how: `esbuild (browser platform, ESM with code splitting${stubNode ? ', node:* → empty modules' : ''}), a page on 127.0.0.1, playwright-core`,
  diagnosis: stubNode,
  async run(ctx) {
    let userAgent = '';
    const programs = await bundledPrograms(ctx, {
      id: this.id,
      kind: 'browser',
      target: 'browser',
      stubNode,
      host: async (dir, file) => {
        writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>nanobot runtimes</title><script type="module" src="./${file}"></script>\n`);
        for (const program of ctx.programs) writeFileSync(join(dir, `${program}.json`), ctx.inputs[program]);
        const res = await run(process.execPath, [join(runtimesDir, 'src', 'hosts', 'browser-host.mjs'), dir, ...ctx.programs], { timeoutMs: ctx.timeoutMs });
        try {
          const parsed = JSON.parse(res.stdout);
          userAgent = parsed.userAgent ?? userAgent;
          return { ...res, stdout: JSON.stringify(parsed.programs) };
        } catch {
          return res; // reported by bundledPrograms
        }
      },
    });
    const installed = async () => (await versionOf(process.env.NANOBOT_CHROMIUM ?? '/usr/bin/chromium')).split(' ').slice(0, 2).join(' ');
    // The installed binary's own version (the page's user agent reduces it to 156.0.0.0).
    const version = await installed().catch(() => userAgent || 'Chromium (not found)');
    return { version, programs };
  },
});

/** Every runtime, in report order. The first is the baseline the others are compared with. */
export const RUNTIMES = [
  nodeRunner(20),
  nodeRunner(22),
  nodeRunner(24),
  bun,
  deno,
  workerdRunner({ id: 'workerd', label: 'workerd, a new Worker\'s defaults (nodejs_compat on)', flags: [] }),
  workerdRunner({ id: 'workerd-no-nodejs-compat', label: 'workerd without nodejs_compat', flags: ['no_nodejs_compat'] }),
  edgeRunner(),
  chromiumRunner(),
  edgeRunner({ stubNode: true }),
  chromiumRunner({ stubNode: true }),
];
