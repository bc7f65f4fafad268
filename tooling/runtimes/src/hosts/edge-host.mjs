// Runs one edge bundle in Vercel's edge-runtime, as `edge-runtime` serves an edge function:
// `node edge-host.mjs <edge-runtime entry> <bundle.js> <input.json>` evaluates the bundle in a
// fresh EdgeVM (Web APIs only, no code generation), POSTs the input to its fetch listener and
// prints the program's envelope as JSON. A bundle that throws while loading gives
// `{ ok: false, stage: 'load' }`.
import { readFileSync } from 'node:fs';

const [edgeRuntimeEntry, bundleFile, inputFile] = process.argv.slice(2);
const { EdgeRuntime } = await import(edgeRuntimeEntry);
let runtime;
try {
  runtime = new EdgeRuntime({ initialCode: readFileSync(bundleFile, 'utf8') });
} catch (caught) {
  const error = /** @type {any} */ (caught);
  process.stdout.write(JSON.stringify({ ok: false, stage: 'load', error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` }));
  process.exit(0);
}
const response = await runtime.dispatchFetch('http://127.0.0.1/', { method: 'POST', body: readFileSync(inputFile, 'utf8') });
await response.waitUntil();
process.stdout.write(await response.text());
