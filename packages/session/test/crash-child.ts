// Child process of the crash test: appends numbered messages to one session forever,
// acknowledging each on stdout (synchronously) only after `save` returned. The parent kills it
// with SIGKILL at random moments. Occasional metadata changes and compactions exercise the
// appended-header and atomic-rewrite paths too.
import { writeSync } from 'node:fs';
import { JsonlSessionStore } from '../src/jsonl-session-store.js';

const [dir, key] = process.argv.slice(2);
const store = new JsonlSessionStore({ dir, fsync: 'never', compactAfterBytes: 4096 });
const { session } = await store.load(key);
let seq = 0;
for (const m of session.messages) if (typeof m.seq === 'number' && m.seq > seq) seq = m.seq;
writeSync(1, 'ready\n');
for (;;) {
  seq += 1;
  session.addMessage(seq % 2 ? 'user' : 'assistant', `message ${seq} ${'x'.repeat(seq % 200)}`, { seq });
  const r = Math.random();
  if (r < 0.1) session.metadata = { ...session.metadata, tick: seq };
  if (r > 0.97) await store.compact(session);
  else await store.save(session);
  writeSync(1, `ack ${seq}\n`);
}
