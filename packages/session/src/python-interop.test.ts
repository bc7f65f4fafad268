// Files written by the Python nanobot, and files we write, read the same on both sides.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore, parseJson, sessionFileName, stringifyJson } from './index.js';
import { referenceListEntry, referenceLoad, referenceReadMetadata, referenceUpdateMetadata } from '../test/reference-readers.js';

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'python-written-session.jsonl');
const KEY = 'telegram:42';
let dir: string;
const file = (d = dir) => join(d, sessionFileName(KEY));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nb-interop-'));
  copyFileSync(fixture, file());
});

/** A line without the whitespace between tokens (Python writes `", "` and `": "`, we write none). */
function compactJson(line: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (inString) {
      out += c;
      if (c === '\\') out += line[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}
const recordLines = (bytes: Buffer): string[] => bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '').map(compactJson);

describe('values Python’s json writes', () => {
  it('load without a warning and every message survives', async () => {
    const { session, warnings } = await new JsonlSessionStore({ dir, fsync: 'never' }).load(KEY);
    expect(warnings).toEqual([]);
    expect(session.messages).toHaveLength(5);
    const metrics = session.messages[3].metrics as Record<string, number>;
    expect([metrics.latency, metrics.max, metrics.min, metrics.ratio]).toEqual([NaN, Infinity, -Infinity, 1]);
    expect(session.metadata.score).toBeNaN();
  });

  it('are written back unchanged by a rewrite (same tokens: NaN, ±Infinity, big integers, 1.0, 1e-07)', async () => {
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const { session } = await store.load(KEY);
    await store.compact(session);
    const before = recordLines(readFileSync(fixture));
    const after = recordLines(readFileSync(file()));
    expect(after.slice(1)).toEqual(before.slice(1)); // every message line, token for token
    expect(after[0]).toBe(before[0]); // the metadata record too
    for (const token of ['NaN', '-Infinity', '9007199254740993', '12345678901234567890', '"ratio":1.0', '1e-07', '"latency_ms":1500.0']) {
      expect(readFileSync(file(), 'utf8')).toContain(token);
    }
  });

  it('property: parseJson → stringifyJson reproduces every number token', () => {
    const token = fc.oneof(
      fc.constantFrom('NaN', 'Infinity', '-Infinity', '1.0', '-0.0', '1e-07', '1e+20', '1E5', '9007199254740993', '-12345678901234567890', '0.30000000000000004'),
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), token), { maxLength: 8 }), fc.array(token, { maxLength: 5 }), (pairs, list) => {
        const members = pairs.map(([k, v], i) => `${JSON.stringify(`k${i}${k}`)}:${v}`); // no integer-like keys: JS reorders those
        const text = `{${[...members, `"list":[${list.join(',')}]`].join(',')}}`;
        expect(stringifyJson(parseJson(text))).toBe(text);
      }),
    );
  });
});

describe('a file we appended to reads the same in the reference as after compact()', () => {
  async function appended() {
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const { session } = await store.load(KEY);
    session.addMessage('user', 'book the first one');
    session.addMessage('assistant', 'Booked Leaf for 19:00.');
    session.metadata.title = 'Dinner booked at Leaf';
    session.lastConsolidated = 2;
    await store.save(session);
    const bytes = readFileSync(file());
    const other = mkdtempSync(join(tmpdir(), 'nb-interop-compacted-'));
    writeFileSync(file(other), bytes);
    const second = new JsonlSessionStore({ dir: other, fsync: 'never' });
    await second.compact((await second.load(KEY)).session);
    return { store, session, bytes, compacted: readFileSync(file(other)) };
  }

  it('load(), read_metadata() and list_sessions() see the new title, pointer and updated_at', async () => {
    const { session, bytes, compacted } = await appended();
    expect(referenceLoad(bytes)).toEqual(referenceLoad(compacted));
    expect(referenceReadMetadata(bytes)).toEqual(referenceReadMetadata(compacted));
    expect(referenceListEntry(bytes)).toEqual(referenceListEntry(compacted));
    expect(referenceListEntry(bytes)).toMatchObject({ title: 'Dinner booked at Leaf', updated_at: session.updatedAt });
    expect(referenceLoad(bytes)).toMatchObject({ lastConsolidated: 2 });
    expect((referenceLoad(bytes).messages as unknown[]).length).toBe(7);
  });

  it('update_metadata() edits the one metadata record: we read its update, and our next save keeps it', async () => {
    const { store, session, bytes } = await appended();
    writeFileSync(file(), referenceUpdateMetadata(bytes, { pinned: true })!);
    const reread = (await new JsonlSessionStore({ dir, fsync: 'never' }).load(KEY)).session;
    expect(reread.metadata).toMatchObject({ pinned: true, title: 'Dinner booked at Leaf' });
    // The session object loaded before the update appends a message: only updated_at is merged.
    session.addMessage('user', 'thanks');
    await store.save(session);
    const after = readFileSync(file());
    expect(referenceReadMetadata(after)).toMatchObject({ metadata: { pinned: true }, updated_at: session.updatedAt });
    expect((await store.load(KEY)).session.messages.at(-1)?.content).toBe('thanks');
  });

  it('our loader reads the reference’s own rewrite of our file', async () => {
    const { bytes } = await appended();
    mkdirSync(dir, { recursive: true });
    // What the reference's save() writes: one Python-formatted line per record, no padding.
    const ref = referenceLoad(bytes);
    const header = { _type: 'metadata', key: KEY, created_at: ref.createdAt, updated_at: ref.updatedAt, metadata: ref.metadata, last_consolidated: ref.lastConsolidated };
    writeFileSync(file(), [header, ...(ref.messages as object[])].map((r) => stringifyJson(r)).join('\n') + '\n');
    const { session, warnings } = await new JsonlSessionStore({ dir, fsync: 'never' }).load(KEY);
    expect(warnings).toEqual([]);
    expect([session.messages.length, session.lastConsolidated, session.metadata.title]).toEqual([7, 2, 'Dinner booked at Leaf']);
  });
});
