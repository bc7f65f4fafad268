import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from '@nanobot/governor';
import { JsonlSessionStore, getHistory } from './index.js';
import { deepFreeze } from '../test/helpers.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();

describe('recorded transcripts', () => {
  it('finds the 16 transcripts', () => {
    expect(files).toHaveLength(16);
  });

  it.each(files)('%s: store round-trip is lossless and replay is legal at any pointer', async (file) => {
    const messages = deepFreeze(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[]);
    const body = messages.filter((m) => m.role !== 'system');
    const store = new JsonlSessionStore({ dir: mkdtempSync(join(tmpdir(), 'nb-tr-')), fsync: 'never' });
    const { session } = await store.load(file);
    const half = Math.floor(body.length / 2);
    session.messages.push(...body.slice(0, half));
    await store.save(session);
    session.messages.push(...body.slice(half));
    session.lastConsolidated = half;
    await store.save(session);
    const { session: loaded, warnings } = await store.load(file);
    expect(warnings).toEqual([]);
    expect(loaded.messages).toEqual(body);
    expect(loaded.lastConsolidated).toBe(half);
    for (const pointer of [0, Math.floor(body.length / 3), half, body.length]) {
      for (const options of [{}, { maxMessages: 40 }, { maxTokens: 20_000 }, { maxMessages: 7, extendToUser: true }]) {
        const out = getHistory({ messages: body, lastConsolidated: pointer }, options);
        expect(findLegalMessageStart(out)).toBe(0);
        if (out.length > 0 && out.some((m) => m.role === 'user')) expect(out[0].role).toBe('user');
      }
    }
  });
});
