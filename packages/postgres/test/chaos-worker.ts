// One worker process of the chaos test and the benchmark:
// `node --conditions=source --import tsx chaos-worker.ts <url> <name> [model latency ms] [lease ms]`.
// Connects as application_name `worker-<name>` and answers with the tag `[<name>]`. Prints one
// JSON line per event on stdout: ready, call (a model call started: the worker is mid-turn),
// rollback, error, bus (a bus event: runner restarts, fenced turns, lost leases, takeovers),
// health (every second). Stops gracefully on SIGTERM.
import { createPool } from '../src/create-pool.js';
import { startTestWorker } from '../src/test-support/scripted-worker.js';
import { retryOnConnectionError } from '../src/test-support/retry-connection.js';

const [url, name, latency, lease] = process.argv.slice(2);
const say = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ worker: name, at: Date.now(), ...event })}\n`);
};
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
// Started while the database restarts or refuses connections: keep trying, as a supervisor would.
const pool = await retryOnConnectionError(() => createPool({ url: url!, max: 8, applicationName: `worker-${name}` }));
const worker = await retryOnConnectionError(() => startTestWorker(pool, {
  latencyMs: latency !== undefined ? Number(latency) : 25,
  tag: name!,
  onCall: (request) => say({ event: 'call', messages: request.messages.length }),
  bus: {
    ...(lease !== undefined ? { lockTimeoutMs: Number(lease), heartbeatMs: Math.max(50, Math.floor(Number(lease) / 6)) } : {}),
    onLog: (level, message) => {
      if (message.startsWith('nanobot: rolled back')) say({ event: 'rollback', message });
    },
    onError: (error, context) => say({ event: 'error', stage: context.stage, message: describe(error) }),
  },
}));
worker.bus.onEvent((event) => say({ event: 'bus', type: event.type, ...('error' in event ? { error: describe(event.error) } : {}), ...('reason' in event ? { reason: event.reason } : {}) }));
const health = setInterval(() => say({ event: 'health', health: worker.bus.health() }), 1000);
say({ event: 'ready' });
process.on('SIGTERM', () => {
  clearInterval(health);
  void worker
    .stop()
    .then(() => pool.end())
    .finally(() => process.exit(0));
});
