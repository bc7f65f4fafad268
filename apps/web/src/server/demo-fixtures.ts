import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Message } from '@nanobot/schema';
import type { SessionStore } from '@nanobot/session';

const TOPICS = ['the deploy pipeline', 'the billing export', 'the search index', 'the mobile release', 'the on-call rota', 'the cache layer'];
const WORDS =
  'we agreed to keep the rollout gradual and watch the error budget closely while the team reviews every dashboard before moving traffic over to the new cluster in small steps'.split(' ');

function filler(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[(seed * 7 + i * 3) % WORDS.length]);
  return out.join(' ');
}

/**
 * Writes a small demo workspace (README, notes, a source file and a large build log) into
 * `dir`, leaving files that already exist alone. The log is large on purpose: grepping it
 * yields a result the governor offloads to a file.
 */
export async function seedDemoWorkspace(dir: string): Promise<void> {
  const files: Record<string, string> = {
    'README.md': '# Demo project\n\nA tiny workspace for the nanobot web demo.\n\n- `notes.md`: meeting notes\n- `src/app.ts`: the app\n- `logs/build.log`: a long build log\n',
    'notes.md': '# Notes\n\nRelease 2.3 shipped on Friday. Rollback plan: redeploy 2.2 from the tag and flush the CDN.\nNext: move the billing export to the new queue.\n',
    'src/app.ts': "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n",
    'logs/build.log': Array.from({ length: 1500 }, (_, i) => {
      const level = i % 97 === 0 ? 'ERROR' : i % 13 === 0 ? 'WARN' : 'INFO';
      return `2026-11-29T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z ${level} step ${i}: ${filler(i, 8)}`;
    }).join('\n') + '\n',
  };
  for (const [name, body] of Object.entries(files)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body, 'utf8');
  }
}

/**
 * The prepared long session's messages: many earlier turns (enough to exceed a small budget,
 * so the governor snips the oldest) and, in the last earlier turn, an assistant message whose
 * second tool call never got a result (a crash mid-tools), so the governor backfills it.
 */
export function preparedSessionMessages(turns = 24): Message[] {
  const messages: Message[] = [];
  const stamp = (i: number): string => new Date(Date.UTC(2026, 10, 28, 9, i)).toISOString();
  for (let t = 0; t < turns; t++) {
    const topic = TOPICS[t % TOPICS.length];
    messages.push({ role: 'user', content: `Turn ${t + 1}: what is the status of ${topic}? ${filler(t, 30)}`, timestamp: stamp(t) });
    if (t % 4 === 1) {
      const id = `call_prep_${t}`;
      messages.push({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) } }], timestamp: stamp(t) });
      messages.push({ role: 'tool', tool_call_id: id, name: 'read_file', content: `1| # Notes\n2| ${filler(t + 1, 60)}`, timestamp: stamp(t) });
    }
    messages.push({ role: 'assistant', content: `Status of ${topic} (turn ${t + 1}): ${filler(t + 2, 90)}`, timestamp: stamp(t) });
  }
  // The last earlier turn: two calls, one result. Not at the tail, so the loop's RESTORE repair
  // (which answers calls left open at the end) leaves it to the governor's backfill.
  messages.push({ role: 'user', content: 'Compare the notes with the README.', timestamp: stamp(turns) });
  messages.push({
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'call_prep_notes', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) } },
      { id: 'call_prep_lost', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) } },
    ],
    timestamp: stamp(turns),
  });
  messages.push({ role: 'tool', tool_call_id: 'call_prep_notes', name: 'read_file', content: '1| # Notes\n2| Release 2.3 shipped on Friday.', timestamp: stamp(turns) });
  messages.push({ role: 'assistant', content: 'The notes say release 2.3 shipped on Friday; the README read was lost when the process restarted.', timestamp: stamp(turns) });
  return messages;
}

/** Stores the prepared long session under `key` (replacing what was there) with a title. */
export async function seedPreparedSession(store: SessionStore, key: string, title = 'Prepared long session'): Promise<void> {
  const { session } = await store.load(key);
  session.clear();
  session.messages.push(...preparedSessionMessages());
  session.metadata = { ...session.metadata, title };
  session.updatedAt = new Date().toISOString();
  await store.save(session);
}
