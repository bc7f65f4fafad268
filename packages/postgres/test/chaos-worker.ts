// One worker process of the chaos test and the benchmark:
// `node --conditions=source --import tsx chaos-worker.ts <url> <name> [model latency ms]`.
// Prints one JSON line per event on stdout: ready, call (a model call started: the worker is
// mid-turn), error. Stops gracefully on SIGTERM.
import { createPool } from '../src/create-pool.js';
import { startTestWorker } from '../src/test-support/scripted-worker.js';

const [url, name, latency] = process.argv.slice(2);
const say = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ worker: name, ...event })}\n`);
};
const pool = await createPool({ url: url!, max: 6 });
const worker = await startTestWorker(pool, {
  latencyMs: latency !== undefined ? Number(latency) : 25,
  onCall: (request) => say({ event: 'call', messages: request.messages.length }),
  bus: {
    onLog: (level, message) => {
      if (message.startsWith('nanobot: rolled back')) say({ event: 'rollback', message });
    },
    onError: (error, context) => say({ event: 'error', stage: context.stage, message: error instanceof Error ? error.message : String(error) }),
  },
});
say({ event: 'ready' });
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => pool.end())
    .finally(() => process.exit(0));
});
