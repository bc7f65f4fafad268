// The chat column shows a stored failure as what happened, never as a reply of the assistant:
// new `_failure` rows and the texts earlier versions stored alike (issue 29, item 4).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEGACY_FAILURE_TEXTS, parseMessages, toolFailureRow, turnFailureRow } from '@nanobot/schema';
import { chatItems } from './agent-host.js';

const calls = [{ id: 'c1', type: 'function' as const, function: { name: 'exec', arguments: '{"command":"sleep 9"}' } }];

describe('chatItems and stored failures', () => {
  it('an interrupted turn is a notice and its call is marked interrupted', () => {
    const items = chatItems([
      { role: 'user', content: 'run it' },
      { role: 'assistant', content: '', tool_calls: calls },
      toolFailureRow({ id: 'c1', name: 'exec' }),
      turnFailureRow('interrupted'),
    ]);
    expect(items).toEqual([
      { kind: 'user', text: 'run it' },
      { kind: 'tool', callId: 'c1', name: 'exec', args: '{"command":"sleep 9"}', status: 'interrupted', detail: 'interrupted before it finished' },
      { kind: 'notice', text: 'Interrupted: no reply was generated.' },
    ]);
  });

  it('a failed request is a notice with what the user was told', () => {
    const items = chatItems([{ role: 'user', content: 'hi' }, turnFailureRow('model_error', 'HTTP 429: slow down')]);
    expect(items.at(-1)).toEqual({ kind: 'notice', text: 'The model request failed: no reply was generated (HTTP 429: slow down).' });
    expect(items.some((i) => i.kind === 'assistant')).toBe(false);
  });

  it('a session written by an earlier version shows its failure texts as notices, its real answers as replies', () => {
    const lines = readFileSync(join(process.env.NANOBOT_FIXTURES_DIR!, 'stored-failures', 'failures-written-by-0.x.jsonl'), 'utf8').trim().split('\n').slice(1);
    const messages = parseMessages(lines.map((l) => JSON.parse(l) as unknown));
    const items = chatItems(messages);
    expect(items.filter((i) => i.kind === 'assistant')).toEqual([{ kind: 'assistant', text: 'Hi! 2 + 2 is 4.' }]);
    expect(items.filter((i) => i.kind === 'notice').map((i) => (i as { text: string }).text)).toEqual([
      'Interrupted: no reply was generated.',
      'The model request failed: no reply was generated.',
      'Interrupted: no reply was generated.',
    ]);
    expect(items.filter((i) => i.kind === 'tool').map((i) => (i as { status: string }).status)).toEqual(['interrupted', 'interrupted']);
    expect(JSON.stringify(items)).not.toContain(LEGACY_FAILURE_TEXTS.turnInterrupted);
  });
});
