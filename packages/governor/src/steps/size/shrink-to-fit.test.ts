// shrinkToFit when the cut marker is about as long as the text it replaces: a short newest text
// (the first one picked) must not hold the loop while a longer text behind it could be cut.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { govern } from '../../govern.js';
import { promptTokens } from '../../sizing/estimate.js';
import { estimatorFor } from '../../sizing/model-defaults.js';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { shrinkToFit } from './shrink-to-fit.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const MARKER = 'cut to fit the context window';
const TOOLS = [{ type: 'function' as const, function: { name: 'exec', description: 'Run a command.', parameters: { type: 'object', properties: {} } } }];
// An older text long enough to cover the overflow, and a newest one whose tokens alone exceed
// the overflow by more than the slack but whose saved-location marker costs about as much.
const pasted = 'pasted log line\n'.repeat(20);
const short = '日本語'.repeat(10);

describe('shrinkToFit with a marker as costly as the newest text', () => {
  it('still fits: a cut that does not shorten the prompt is not kept, and the longer text is cut', () => {
    const list = deepFreeze<Message[]>([
      { role: 'user', content: pasted },
      { role: 'assistant', content: short },
    ]);
    const budget = promptTokens(list, {}) - 5;
    const r = shrinkToFit(list, { budget, artifactStore: new MemoryArtifactStore(), sessionKey: 's' });
    expect(r.tokens).toBeLessThanOrEqual(budget);
    expect(promptTokens(r.messages, {})).toBe(r.tokens);
    for (const s of r.shrunk) expect(r.messages[s.index].content).toContain(MARKER);
    for (const [i, m] of r.messages.entries()) if (!r.shrunk.some((s) => s.index === i)) expect(m).toBe(list[i]);
  });

  it('govern (openai target, with a store): a tool batch whose short newest result was picked first fits every budget', () => {
    // Found by the property test: the short result was cut again and again (each cut as long
    // as the last), the compacted result before it was never cut, and the copy stayed over.
    const calls = (ids: string[]): Message => ({ role: 'assistant', content: '', tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{}' } })) });
    const history = deepFreeze<Message[]>([
      { role: 'system', content: 'You are nanobot.' },
      calls(['call_1', 'call_2', 'call_3']),
      { role: 'tool', tool_call_id: 'call_1', content: 'the '.repeat(50) },
      { role: 'tool', tool_call_id: 'call_2', content: 'the the x = 1; x = 1; the 日本語 x = 1; {"k": 2}' },
    ]);
    for (let budget = 150; budget <= 300; budget++) {
      const options = { target: 'openai' as const, contextBlockLimit: budget, contextWindowTokens: 1_000_000, tools: TOOLS, artifactStore: new MemoryArtifactStore(), sessionKey: 's' };
      const { messages, report } = govern(history, options);
      expect(report.budget).toBe(budget);
      expect({ budget, fits: report.fits }).toEqual({ budget, fits: true });
      expect(promptTokens(messages, { tools: TOOLS, estimator: estimatorFor({}) })).toBeLessThanOrEqual(budget);
      expect(messages[0]).toBe(history[0]);
    }
  });

  it('cuts even a text its marker outgrows once the copy cannot fit anyway', () => {
    // Nothing but a short text: the marker costs more than the text, so nothing fits, and the
    // copy sent over budget holds no text left to cut (the full text is saved).
    const text = 'hello there, can you help with the build? it fails at the link step.';
    const list = deepFreeze<Message[]>([{ role: 'user', content: text }]);
    const store = new MemoryArtifactStore();
    const r = shrinkToFit(list, { budget: promptTokens(list, {}) - 1, artifactStore: store, sessionKey: 's' });
    expect(r.tokens).toBeGreaterThan(promptTokens(list, {}));
    expect(r.shrunk).toEqual([{ index: 0, location: expect.any(String), originalChars: text.length }]);
    expect(r.messages[0].content).toContain(MARKER);
    expect(store.read(r.shrunk[0].location!)).toBe(text);
  });
});
