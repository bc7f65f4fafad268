import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../errors/errors.js';
import { parseMessage, parseMessages } from './zod-bound.js';
import * as nodeBound from '../node/zod-bound.js';
import { deepFreeze } from '@nanobot-internal/test-support';

function thrown(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('did not throw');
}

describe('parseMessage', () => {
  it('accepts every recorded transcript message and keeps extra keys', () => {
    const dir = join(process.env['NANOBOT_FIXTURES_DIR']!, 'transcripts');
    let count = 0;
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.json') && !file.endsWith('.jsonl')) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      const records: unknown[] = file.endsWith('.jsonl')
        ? text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown)
        : ((): unknown[] => {
            const doc = JSON.parse(text) as { messages?: unknown[] } | unknown[];
            return Array.isArray(doc) ? doc : (doc.messages ?? []);
          })();
      for (const record of records) {
        if (typeof record !== 'object' || record === null || !('role' in record)) continue;
        const frozen = deepFreeze(record);
        expect(parseMessage(frozen)).toEqual(frozen);
        count++;
      }
    }
    expect(count).toBeGreaterThan(0);
  });

  it('names the wrong field', () => {
    const err = thrown(() => parseMessages([{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 5, type: 'function', function: { name: 'x', arguments: '{}' } }] }]));
    expect(err.path).toEqual([1, 'tool_calls', 0, 'id']);
    expect(err.message).toMatch(/^\[1\]\.tool_calls\[0\]\.id: /);
    expect(thrown(() => parseMessage({ role: 'robot', content: 'x' })).path).toEqual(['role']);
    expect(thrown(() => parseMessage({ role: 'tool', content: 'x' })).path).toEqual(['tool_call_id']);
    expect(thrown(() => parseMessage({ role: 'user', content: [{ type: 'text' }] })).path).toEqual(['content', 0, 'text']);
    expect(thrown(() => parseMessage('not an object')).message).toMatch(/^message: /);
    expect(thrown(() => parseMessages({})).message).toMatch(/must be an array/);
  });

  it('reports cyclic values as a typed error', () => {
    const msg: Record<string, unknown> = { role: 'user', content: 'x', extra: {} };
    (msg['extra'] as Record<string, unknown>)['loop'] = msg;
    const err = thrown(() => parseMessage(msg));
    expect(err.code).toBe('CIRCULAR_VALUE');
    expect(err.path).toEqual(['extra', 'loop']);
  });
});

describe.each([
  ['main entry (static zod import)', () => import('./zod-bound.js')],
  ['Node entry (zod required on first use)', () => import('../node/zod-bound.js')],
])('messageSchema of the %s', (_name, load) => {
  it('is a usable zod schema (lazy) that composes with the caller’s zod', async () => {
    const { z } = await import('zod');
    const { messageSchema } = await load();
    const history = z.array(messageSchema);
    expect(history.safeParse([{ role: 'user', content: 'hi' }]).success).toBe(true);
    expect(history.safeParse([{ role: 'user', content: 5 }]).success).toBe(false);
    expect(messageSchema.parse({ role: 'assistant', content: null, extra: 1 })).toEqual({ role: 'assistant', content: null, extra: 1 });
  });
});

describe('both entries parse alike', () => {
  it('gives the same records and the same errors', () => {
    const records = [{ role: 'user', content: 'hi' }, { role: 'tool', content: 'x' }, { role: 'wizard' }, { role: 'assistant', tool_calls: [{ id: 1 }] }];
    for (const record of records) {
      const outcome = (parse: (r: unknown) => unknown) => {
        try {
          return { ok: parse(record) };
        } catch (error) {
          return { error: (error as Error).message, path: (error as ValidationError).path };
        }
      };
      expect(outcome((r) => nodeBound.parseMessage(r))).toEqual(outcome((r) => parseMessage(r)));
    }
    expect(nodeBound.parseMessages([{ role: 'user', content: 'a' }])).toEqual(parseMessages([{ role: 'user', content: 'a' }]));
  });
});
