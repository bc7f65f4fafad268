import { describe, expect, it } from 'vitest';
import { HistoryInputError, readHistory } from './read-history.js';

const json = (v: unknown): string => JSON.stringify(v, null, 2);

describe('readHistory', () => {
  it('tells the four formats apart from their shapes, bare or in a request body', () => {
    const chat = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] }];
    expect(readHistory(json(chat))).toMatchObject({ format: 'openai', path: '(top level)' });
    expect(readHistory(json({ model: 'gpt-4o', messages: chat }))).toMatchObject({ format: 'openai', path: 'messages' });
    const anthropic = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] }];
    expect(readHistory(json(anthropic)).format).toBe('anthropic');
    // A plain list with a top-level system prompt is an Anthropic request body.
    expect(readHistory(json({ system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] }))).toMatchObject({ format: 'anthropic', system: 'Be brief.' });
    expect(readHistory(json([{ role: 'user', content: 'hi' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }])).format).toBe('responses');
    expect(readHistory(json({ input: [{ role: 'user', content: 'hi' }] })).format).toBe('responses');
    const aiSdk = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }] }];
    expect(readHistory(json(aiSdk)).format).toBe('ai-sdk');
    expect(readHistory(json({ prompt: [{ role: 'user', content: 'hi' }] })).format).toBe('ai-sdk');
    // Plain role/content messages fit every format: read as OpenAI chat.
    expect(readHistory(json([{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }])).format).toBe('openai');
  });

  it('a chosen format wins over what the shapes say', () => {
    expect(readHistory(json([{ role: 'user', content: 'hi' }]), 'ai-sdk').format).toBe('ai-sdk');
  });

  const refused: [string, string, RegExp][] = [
    ['empty text', '   ', /Nothing to govern yet/],
    ['invalid JSON, quoting where', '[\n  {"role": "user",\n  "content": }\n]', /^This is not valid JSON: Unexpected token '\}'.*"content": \}/s],
    ['cut-off JSON, with the line and column', '[\n  {"role": "user",\n  "content": "hi"', /^This is not valid JSON: .*\(line 3, column \d+\)/],
    ['a number', '42', /a number, not a history/],
    ['an object without a history', '{"model": "gpt-4o", "temperature": 0}', /without a history.*keys model, temperature/],
    ['an empty list', '{"messages": []}', /empty list/],
    ['a list with a string in it', '[{"role": "user", "content": "x"}, "oops"]', /Item 1 of the history is a string/],
    ['messages of an unknown shape', '[{"speaker": "me", "text": "hi"}]', /Item 0 has no role \(keys: speaker, text\)/],
    ['two formats at once', json([{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }] }]), /mixes formats: Anthropic Messages \(item 0\) and AI SDK ModelMessage \(item 1\)/],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what} with a clear HistoryInputError`, () => {
      let error: unknown;
      try {
        readHistory(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HistoryInputError);
      expect((error as Error).message).toMatch(message);
    });
  }
});
