// The entry module of each bundled runtime, written into the consumer's programs/ folder so that
// the bundler resolves the packages from the consumer's node_modules. One entry per runtime holds
// every selected program (one bundle, one Worker, one page: the tokenizer's ranks are parsed once
// per runtime, as an app parses them once), and answers for one program per request. Each is what
// a user of that runtime writes: a Worker's fetch handler, an edge function's fetch listener, a
// page script.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HEAD = (programs) => `${programs.map((p) => `import { run as ${p} } from './${p}.mjs';`).join('\n')}
import { envelope } from './encode.mjs';

const PROGRAMS = { ${programs.join(', ')} };
/** The envelope of program \`name\` on \`input\`. */
const answer = (name, input) => (PROGRAMS[name] ? envelope(PROGRAMS[name], input) : { ok: false, stage: 'load', error: \`harness: unknown program \${name}\` });
`;

const SOURCES = {
  // Cloudflare Worker (module syntax): POST /<program> with the input, get the envelope.
  workerd: (programs) => `${HEAD(programs)}
export default {
  async fetch(request) {
    const body = JSON.stringify(await answer(new URL(request.url).pathname.slice(1), await request.text()));
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  },
};
`,
  // Vercel edge function as edge-runtime runs it: a script with a fetch listener.
  edge: (programs) => `${HEAD(programs)}
addEventListener('fetch', (event) => {
  const name = new URL(event.request.url).pathname.slice(1);
  event.respondWith(
    event.request.text().then(async (input) => new Response(JSON.stringify(await answer(name, input)), { headers: { 'content-type': 'application/json' } })),
  );
});
`,
  // Web page: the page script exposes the programs; the harness calls each through Playwright.
  browser: (programs) => `${HEAD(programs)}
globalThis.__nanobotRun = async (name) => {
  const input = await (await fetch(\`./\${name}.json\`)).text();
  return JSON.stringify(await answer(name, input));
};
globalThis.__nanobotReady = true;
`,
};

/** Writes `programs/entry-<kind>.mjs` (running `programs`) into the consumer and returns its path. */
export function writeEntry(consumerDir, kind, programs) {
  const file = join(consumerDir, 'programs', `entry-${kind}.mjs`);
  writeFileSync(file, SOURCES[kind](programs));
  return file;
}
