// Child of the store tests: a second process that loads a session, appends one message and saves.
import { JsonlSessionStore } from '../src/jsonl-session-store.js';

const [dir, key, content] = process.argv.slice(2);
const store = new JsonlSessionStore({ dir, fsync: 'never' });
const { session } = await store.load(key);
session.addMessage('user', content);
await store.save(session);
process.stdout.write('saved\n');
