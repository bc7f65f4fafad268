// Failures stored as data (issue 29, item 4): interrupted turns, interrupted calls and failed
// requests replay as neutral notes, whether they were stored as `_failure` rows or as the texts
// earlier versions (and the reference) stored as speech; and the result is legal for OpenAI and
// Anthropic without any assistant text the model did not produce.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LEGACY_FAILURE_TEXTS,
  MODEL_ERROR_NOTE,
  TOOL_INTERRUPTED_NOTE,
  TURN_INTERRUPTED_NOTE,
  isFailureNote,
  toolFailureRow,
  turnFailureRow,
  type Message,
} from '@nanobot/schema';
import { checkLegality, govern } from '@nanobot/governor';
import { JsonlSessionStore, MemoryStore, Session, getHistory, sessionFileName } from './index.js';
import { referenceLoad } from '../test/reference-readers.js';
import { assistant, call, deepFreeze, toolResult, user } from '../test/helpers.js';

const fixtures = join(process.env.NANOBOT_FIXTURES_DIR!, 'stored-failures');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nb-failures-'));
  dirs.push(dir);
  return dir;
}

const LEGACY: readonly string[] = [LEGACY_FAILURE_TEXTS.turnInterrupted, LEGACY_FAILURE_TEXTS.toolInterrupted, ...LEGACY_FAILURE_TEXTS.modelError];
const textOf = (m: Message): string => (typeof m.content === 'string' ? m.content : m.content === null || m.content === undefined ? '' : JSON.stringify(m.content));

/** The next request as the loop builds it: instructions, the replayed history, the new message. */
function nextRequest(history: readonly Message[]): Message[] {
  return [{ role: 'system', content: 'You are nanobot.' }, ...history, { role: 'user', content: 'next question' }];
}

/** Legal for both APIs once governed for them, with no assistant text outside `spoken`. */
function expectLegalWithoutInventedSpeech(history: readonly Message[], spoken: readonly string[]): void {
  const request = nextRequest(history);
  expect(checkLegality(request, { target: 'openai' })).toEqual([]);
  for (const target of ['openai', 'anthropic'] as const) {
    const governed = govern(request, { target }).messages;
    expect(checkLegality(governed, { target })).toEqual([]);
    for (const m of governed) {
      if (m.role !== 'assistant') continue;
      const text = textOf(m).trim();
      if (text !== '') expect(spoken).toContain(text);
    }
    expect(governed.some((m) => LEGACY.some((t) => textOf(m).includes(t)))).toBe(false);
  }
}

describe('replaying stored failures', () => {
  it('an interrupted turn (calls interrupted, no reply) replays as tool notes and a user-role note', () => {
    const stored = deepFreeze([
      user('clean up'),
      assistant('', { tool_calls: [call('c1', 'exec'), call('c2', 'list_dir')] }),
      toolResult('c1', 'removed 3 files'),
      { ...toolFailureRow({ id: 'c2', name: 'list_dir' }), timestamp: 't' },
      { ...turnFailureRow('interrupted'), timestamp: 't' },
    ]);
    const history = getHistory({ messages: stored, lastConsolidated: 0 });
    expect(history).toEqual([
      { role: 'user', content: 'clean up' },
      { role: 'assistant', content: '', tool_calls: [call('c1', 'exec'), call('c2', 'list_dir')] },
      { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'removed 3 files' },
      { role: 'tool', tool_call_id: 'c2', name: 'list_dir', content: TOOL_INTERRUPTED_NOTE },
      { role: 'user', content: TURN_INTERRUPTED_NOTE },
    ]);
    expectLegalWithoutInventedSpeech(history, []);
  });

  it('a failed request replays as a user-role note, with the error detail kept out of the model\'s view', () => {
    const stored = deepFreeze([user('hi'), assistant('Hello!'), user('summarise'), turnFailureRow('model_error', 'HTTP 500 from upstream')]);
    const history = getHistory({ messages: stored, lastConsolidated: 0 });
    expect(history.at(-1)).toEqual({ role: 'user', content: MODEL_ERROR_NOTE });
    expect(JSON.stringify(history)).not.toContain('HTTP 500');
    expectLegalWithoutInventedSpeech(history, ['Hello!']);
  });

  it('a window never starts at a note, even when the token budget cuts right before one', () => {
    const stored = deepFreeze([user('a'.repeat(400)), turnFailureRow('interrupted'), user('b'), assistant('B!')]);
    const full = getHistory({ messages: stored, lastConsolidated: 0 });
    expect(full.map((m) => m.role)).toEqual(['user', 'user', 'user', 'assistant']);
    // Room for the newest rows and the note, but not the long message the note speaks of.
    const cut = getHistory({ messages: stored, lastConsolidated: 0 }, { maxTokens: 60 });
    expect(cut[0]).toEqual({ role: 'user', content: 'b' });
    expect(cut.some(isFailureNote)).toBe(false);
  });
});

describe('sessions written by earlier versions and by the reference', () => {
  for (const [name, key, spoken] of [
    ['failures-written-by-0.x.jsonl', 'cli:direct', ['Hi! 2 + 2 is 4.']],
    ['failures-written-by-reference.jsonl', 'telegram:77', ['Hi!']],
  ] as const) {
    it(`${name}: every stored failure text is read as the failure it stands for`, async () => {
      const dir = tempDir();
      copyFileSync(join(fixtures, name), join(dir, sessionFileName(key)));
      const store = new JsonlSessionStore({ dir, fsync: 'never' });
      const { session, warnings } = await store.load(key);
      expect(warnings ?? []).toEqual([]);
      const history = session.getHistory();
      // Same rows, same places: each legacy row became its note.
      expect(history).toHaveLength(session.messages.length);
      history.forEach((row, i) => {
        const source = session.messages[i];
        const text = textOf(source).trim();
        if (source.role === 'tool' && text === LEGACY_FAILURE_TEXTS.toolInterrupted) expect(row).toMatchObject({ role: 'tool', tool_call_id: source.tool_call_id, content: TOOL_INTERRUPTED_NOTE });
        else if (text === LEGACY_FAILURE_TEXTS.turnInterrupted) expect(row).toEqual({ role: 'user', content: TURN_INTERRUPTED_NOTE });
        else if ((LEGACY_FAILURE_TEXTS.modelError as readonly string[]).includes(text)) expect(row).toEqual({ role: 'user', content: MODEL_ERROR_NOTE });
        else expect(row.role).toBe(source.role);
      });
      expectLegalWithoutInventedSpeech(history, spoken);
      // Reading changes nothing on disk.
      expect(readFileSync(join(dir, sessionFileName(key)), 'utf8')).toBe(readFileSync(join(fixtures, name), 'utf8'));
    });
  }

  it('the raw archive records failures as events, not as the assistant\'s or a tool\'s words', async () => {
    const workspace = tempDir();
    const memory = new MemoryStore({ workspace });
    const { session } = await (async () => {
      const dir = tempDir();
      copyFileSync(join(fixtures, 'failures-written-by-0.x.jsonl'), join(dir, sessionFileName('cli:direct')));
      return new JsonlSessionStore({ dir, fsync: 'never' }).load('cli:direct');
    })();
    await memory.rawArchive([...session.messages, turnFailureRow('model_error', 'boom')], 'cli:direct');
    const entry = (await memory.readHistory()).entries.at(-1)!.content;
    for (const text of LEGACY) expect(entry).not.toContain(text);
    expect(entry).toContain(`EVENT: ${TURN_INTERRUPTED_NOTE}`);
    expect(entry).toContain(`TOOL: ${TOOL_INTERRUPTED_NOTE}`);
    expect(entry).toContain(`EVENT: ${MODEL_ERROR_NOTE}`);
    expect(entry).toContain('ASSISTANT: Hi! 2 + 2 is 4.');
  });
});

describe('the new rows in nanobot\'s Python reader', () => {
  it('are plain messages to it: the turn row is a blank assistant row (skipped on replay, the turn counts as closed), the tool row carries the note', async () => {
    const dir = tempDir();
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const session = new Session({ key: 'cli:py', messages: [user('go'), assistant('', { tool_calls: [call('c1')] }), toolFailureRow({ id: 'c1', name: 'exec' }), turnFailureRow('interrupted')] });
    await store.save(session);
    const read = referenceLoad(readFileSync(join(dir, sessionFileName('cli:py'))));
    const rows = read.messages as Message[];
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', content: '', _failure: { kind: 'interrupted' } });
    // The reference's RESTORE closes a turn only when the last row is a user row: this one is not.
    expect(rows.at(-1)!.role).not.toBe('user');
    // Its replay ignores unknown keys: our replay of the rows without `_failure` is exactly it.
    const asPython = getHistory({ messages: rows.map(({ _failure: _ignored, ...rest }) => rest as Message), lastConsolidated: 0 });
    expect(asPython.map((m) => [m.role, textOf(m)])).toEqual([
      ['user', 'go'],
      ['assistant', ''],
      ['tool', TOOL_INTERRUPTED_NOTE],
    ]);
  });
});
