// Runs one edge bundle in Vercel's edge-runtime, as `edge-runtime` serves an edge function:
// `node edge-host.mjs <edge-runtime entry> <bundle.js> <input dir> <program>...` evaluates the
// bundle in a fresh EdgeVM (Web APIs only, no code generation, `process.env` as Vercel gives
// it), POSTs each program's input to its fetch listener (`/<program>`) and prints `{ <program>: envelope & { ms } }` as JSON. A bundle
// that throws while loading gives every program `{ ok: false, stage: 'load' }`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [edgeRuntimeEntry, bundleFile, inputDir, ...programs] = process.argv.slice(2);
const { EdgeRuntime } = await import(edgeRuntimeEntry);
const out = {};
let runtime;
try {
  // Vercel's edge functions have a `process` whose `env` holds the project's variables (the
  // Next.js Edge Runtime reference: "process.env" is how they are read; nothing else of Node's
  // process is there). The bare EdgeVM has no `process`: add what a deployment has, so a library
  // that reads `process.env` (the openai SDK does) behaves as it does on Vercel.
  runtime = new EdgeRuntime({ initialCode: readFileSync(bundleFile, 'utf8'), extend: (context) => Object.assign(context, { process: { env: {} } }) });
} catch (caught) {
  const error = /** @type {any} */ (caught);
  for (const p of programs) out[p] = { ok: false, stage: 'load', error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` };
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}
for (const p of programs) {
  const started = Date.now();
  const response = await runtime.dispatchFetch(`http://127.0.0.1/${p}`, { method: 'POST', body: readFileSync(join(inputDir, `${p}.json`), 'utf8') });
  await response.waitUntil();
  const text = await response.text();
  try {
    out[p] = { ...JSON.parse(text), ms: Date.now() - started };
  } catch {
    out[p] = { ok: false, stage: 'run', error: `HTTP ${response.status}: ${text.slice(0, 300)}`, ms: Date.now() - started };
  }
}
process.stdout.write(JSON.stringify(out));
