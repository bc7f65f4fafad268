// Anthropic's server-side compaction block as @ai-sdk/anthropic carries it (a text part marked
// `providerOptions.anthropic.type: 'compaction'`): the governor sees it as the block (an anchor),
// keeps it in front of a cut and never shortens it, and the part goes back as the same object.
import { deepFreeze } from '@nanobot-internal/test-support';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';

const summary = { type: 'text' as const, text: `Summary: ${'the user fixed the build cache and moved on to the flaky tests. '.repeat(6)}`, providerOptions: { anthropic: { type: 'compaction' } } };
const turn = (n: number): ModelMessage[] => [
  { role: 'user', content: `Question ${n}: ${'why does the build fail on the second run '.repeat(12)}` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `toolu_${n}`, toolName: 'exec', input: { cmd: 'make' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `toolu_${n}`, toolName: 'exec', output: { type: 'text', value: 'make: error '.repeat(40) } }] },
  { role: 'assistant', content: `Answer ${n}: ${'the cache is stale '.repeat(20)}` },
];
const compacted: ModelMessage = { role: 'assistant', content: [summary, { type: 'text', text: 'Continuing from the summary.' }] };
const history = (before: number, after: number): ModelMessage[] => deepFreeze([
  ...Array.from({ length: before }, (_, n) => turn(n)).flat(),
  { role: 'user', content: 'Keep going.' },
  compacted,
  ...Array.from({ length: after }, (_, n) => turn(100 + n)).flat(),
  { role: 'user', content: 'What next?' },
]);
const options = { target: 'anthropic' as const, contextWindowTokens: 100_000, contextBlockLimit: 1500 };

describe('an Anthropic compaction block through governModelMessages', () => {
  it('over budget, the copy starts at the compaction turn (what precedes the block is ignored by the API), the part the same object', () => {
    const messages = history(12, 1);
    const out = governModelMessages(messages, options);
    const turnOut = out.messages.find((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.includes(summary as never));
    expect(turnOut).toBeDefined();
    expect(out.messages[0].role).toBe('user');
    expect(out.messages.at(-1)).toBe(messages.at(-1));
    expect(out.report.cut?.serverCompaction).toBe('cut-at-anchor');
  });

  it('a cut after the compaction turn keeps it in front, the newest user turn last', () => {
    const messages = history(1, 12);
    const out = governModelMessages(messages, options);
    expect(out.messages.some((m) => Array.isArray(m.content) && (m.content as unknown[]).includes(summary))).toBe(true);
    expect(out.messages.length).toBeLessThan(messages.length - messages.indexOf(compacted));
    expect(out.messages.at(-1)).toBe(messages.at(-1));
    expect(out.report.cut?.serverCompaction).toBe('anchor-kept');
  });

  it('another target reads the summary as text (the block is Anthropic\'s alone), reported as a conversion', () => {
    const out = governModelMessages(history(0, 0), { target: 'openai' });
    const sent = out.messages.find((m) => m.role === 'assistant')!;
    expect(JSON.stringify(sent.content)).toContain('summary of the earlier conversation');
    expect(JSON.stringify(sent.content)).not.toContain('"compaction"');
    expect(out.report.steps.find((s) => s.step === 'legalizeForTarget')?.added.map((a) => a.reason)).toContain('server-tool-as-text');
  });
});
