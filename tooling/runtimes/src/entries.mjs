// The entry module of each bundled runtime, one per program, written into the consumer's
// programs/ folder so that the bundler resolves the packages from the consumer's node_modules.
// Each is what a user of that runtime writes: a Worker's fetch handler, an edge function's
// fetch listener, a page script.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HEAD = (program) => `import { run } from './${program}.mjs';\nimport { envelope } from './encode.mjs';\n`;

const SOURCES = {
  // Cloudflare Worker (module syntax): POST the input, get the envelope.
  workerd: (program) => `${HEAD(program)}
export default {
  async fetch(request) {
    const body = JSON.stringify(await envelope(run, await request.text()));
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  },
};
`,
  // Vercel edge function as edge-runtime runs it: a script with a fetch listener.
  edge: (program) => `${HEAD(program)}
addEventListener('fetch', (event) => {
  event.respondWith(
    event.request.text().then(async (input) => new Response(JSON.stringify(await envelope(run, input)), { headers: { 'content-type': 'application/json' } })),
  );
});
`,
  // Web page: the page script exposes the program; the harness calls it through Playwright.
  browser: (program) => `${HEAD(program)}
globalThis.__nanobotRun = async () => {
  const input = await (await fetch('./input.json')).text();
  return JSON.stringify(await envelope(run, input));
};
globalThis.__nanobotReady = true;
`,
};

/** Writes `programs/entry-<kind>-<program>.mjs` into the consumer and returns its path. */
export function writeEntry(consumerDir, kind, program) {
  const file = join(consumerDir, 'programs', `entry-${kind}-${program}.mjs`);
  writeFileSync(file, SOURCES[kind](program));
  return file;
}
