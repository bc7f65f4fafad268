// The model-switch rules of issue 25 item 3, one case each: another family's signed state, the
// Responses summary, OpenRouter's current-turn reasoning per model, deepseek-reasoner's earlier
// reasoning. The wire-level matrix (real provider packages, local servers) is in
// tooling/wire-measure's model-switch-matrix test.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality } from '../../check-legality.js';
import { govern } from '../../govern.js';
import { TARGET_PROFILES } from './profiles/index.js';
import { ruleForReason } from './target-profile.js';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'exec', arguments: '{"cmd":"ls"}' } });
const result = (id: string, content = 'a.ts'): Message => ({ role: 'tool', tool_call_id: id, name: 'exec', content });
const reasons = (report: ReturnType<typeof govern>['report'], step: string) => report.steps.filter((s) => s.step === step).flatMap((s) => s.added.map((e) => e.reason));

describe('signed state of another family', () => {
  const thinking = { type: 'thinking', thinking: 'list first', signature: 'SIG-A' };
  const h = deepFreeze<Message[]>([
    { role: 'user', content: 'list' },
    { role: 'assistant', content: null, tool_calls: [call('toolu_1')], thinking_blocks: [thinking], reasoning_content: 'list first' },
    result('toolu_1'),
    { role: 'user', content: 'thanks' },
  ]);

  it('stays byte-exact (the same object) for its own API, is removed for another and reported with its rule', () => {
    expect(govern(h, { target: 'anthropic' }).messages[1]).toBe(h[1]);
    const { messages, report } = govern(h, { target: 'openai' });
    expect(messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [call('toolu_1')], reasoning_content: 'list first' });
    expect(reasons(report, 'legalizeForTarget')).toEqual(['foreign-reasoning-removed']);
    expect(ruleForReason(TARGET_PROFILES.openai, 'foreign-reasoning-removed')?.id).toBe('foreign-artifact');
    expect(checkLegality(h, { target: 'openai' }).map((v) => v.rule)).toEqual(['foreign-artifact']);
    expect(checkLegality(messages, { target: 'openai' })).toEqual([]);
  });

  it('Gemini thought signatures leave the call for other targets, other extra_content stays', () => {
    const g = deepFreeze<Message[]>([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ ...call('c1'), extra_content: { google: { thought_signature: 'G1' }, other: 1 } }] } as Message,
      result('c1'),
    ]);
    expect(govern(g, { target: 'gemini' }).messages[1]).toBe(g[1]);
    expect(govern(g, { target: 'mistral' }).messages[1].tool_calls![0]).toMatchObject({ extra_content: { other: 1 } });
    expect(JSON.stringify(govern(g, { target: 'deepseek' }).messages)).not.toContain('G1');
  });

  it("'any' keeps every family (today's default output)", () => {
    expect(govern(h).messages[1]).toBe(h[1]);
  });
});

describe('Responses reasoning items', () => {
  it('get summary: [] when they have none; everything else byte-exact', () => {
    const item = { type: 'reasoning', id: 'rs_1', encrypted_content: 'ENC' };
    const h = deepFreeze<Message[]>([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', thinking_blocks: [item] } as unknown as Message, { role: 'user', content: 'r' }]);
    const { messages, report } = govern(h, { target: 'responses' });
    expect(messages[1].thinking_blocks).toEqual([{ ...item, summary: [] }]);
    expect(reasons(report, 'legalizeForTarget')).toEqual(['reasoning-summary-added']);
    expect(checkLegality(h, { target: 'responses' }).map((v) => v.rule)).toEqual(['reasoning-summary-missing']);
    const withSummary = deepFreeze<Message[]>([h[0], { ...h[1], thinking_blocks: [{ ...item, summary: [] }] } as Message, h[2]]);
    expect(govern(withSummary, { target: 'responses' }).messages[1]).toBe(withSummary[1]);
  });
});

describe('OpenRouter: the current turn of Gemini 3 and Claude thinking', () => {
  const signed = (id: string): Message => ({ role: 'assistant', content: null, tool_calls: [call(id)], reasoning_details: [{ type: 'reasoning.encrypted', id, data: `D-${id}`, format: 'google-gemini-v1', index: 0 }] } as Message);
  const h = deepFreeze<Message[]>([
    { role: 'user', content: 'go' },
    { role: 'assistant', content: 'Reading.', tool_calls: [call('toolu_9')] },
    result('toolu_9', 'x = 1'),
    signed('tool_1_exec'),
    result('tool_1_exec'),
  ]);

  it('a step another model made is sent as text (calls and results), signed steps stay, the report names it', () => {
    const model = 'google/gemini-3-pro-preview';
    expect(checkLegality(h, { target: 'openrouter', model }).map((v) => [v.rule, v.index])).toEqual([['current-turn-reasoning', 1]]);
    const { messages, report } = govern(h, { target: 'openrouter', model });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(messages[1]).toEqual({ role: 'assistant', content: 'Reading.\n[called exec with {"cmd":"ls"} (call toolu_9)]' });
    expect(messages[2]).toEqual({ role: 'user', content: '[exec result (call toolu_9)]\nx = 1' });
    expect(messages[3]).toBe(h[3]);
    expect(reasons(report, 'currentTurnReasoning')).toEqual(['current-turn-steps-as-text', 'current-turn-steps-as-text']);
    expect(ruleForReason(TARGET_PROFILES.openrouter, 'current-turn-steps-as-text')?.id).toBe('current-turn-reasoning');
    expect(checkLegality(messages, { target: 'openrouter', model })).toEqual([]);
  });

  it('earlier turns, other models and no model are left alone', () => {
    const later = deepFreeze([...h, { role: 'assistant', content: 'done' } as Message, { role: 'user', content: 'next' } as Message]);
    expect(govern(later, { target: 'openrouter', model: 'google/gemini-3-pro-preview' }).messages.slice(0, 5)).toEqual(h);
    expect(govern(h, { target: 'openrouter', model: 'openai/gpt-4.1' }).messages).toBe(h);
    expect(govern(h, { target: 'openrouter' }).messages).toBe(h);
  });

  it('Claude thinking wants signed reasoning on the step: an encrypted detail counts, none does not', () => {
    const model = 'anthropic/claude-sonnet-4.5:thinking';
    const { messages } = govern(h, { target: 'openrouter', model });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(checkLegality(messages, { target: 'openrouter', model })).toEqual([]);
  });
});

describe('deepseek-reasoner: no reasoning of earlier turns', () => {
  const h = deepFreeze<Message[]>([
    { role: 'user', content: 'one' },
    { role: 'assistant', content: null, tool_calls: [call('c1')], reasoning_content: 'r1' },
    result('c1'),
    { role: 'assistant', content: 'done', reasoning_content: 'r2' },
    { role: 'user', content: 'two' },
    { role: 'assistant', content: null, tool_calls: [call('c2')], reasoning_content: 'r3' },
    result('c2'),
  ]);

  it('removes reasoning_content before the last user message, keeps the current tool loop\'s', () => {
    const { messages, report } = govern(h, { target: 'deepseek', model: 'deepseek-reasoner' });
    expect(messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [call('c1')] });
    expect(messages[3]).toEqual({ role: 'assistant', content: 'done' });
    expect(messages[5]).toBe(h[5]);
    expect(reasons(report, 'currentTurnReasoning')).toEqual(['earlier-reasoning-removed', 'earlier-reasoning-removed']);
    expect(checkLegality(h, { target: 'deepseek', model: 'deepseek-reasoner' }).map((v) => v.rule)).toEqual(['earlier-reasoning', 'earlier-reasoning']);
    expect(checkLegality(messages, { target: 'deepseek', model: 'deepseek-reasoner' })).toEqual([]);
  });

  it('the V4 models keep it on every turn', () => {
    expect(govern(h, { target: 'deepseek', model: 'deepseek-v4-flash' }).messages).toBe(h);
  });
});

describe('server-side context editing', () => {
  it('the report says when the request turns it on, with the edit types; nothing without it', async () => {
    const { createGovernor } = await import('../../governor.js');
    const h = deepFreeze<Message[]>([{ role: 'user', content: 'q' }]);
    expect(govern(h, { target: 'anthropic', serverContextManagement: { edits: [{ type: 'clear_tool_uses_20250919' }, { type: 'compact_20260112' }] } }).report.serverEditing).toEqual({ edits: ['clear_tool_uses_20250919', 'compact_20260112'] });
    expect(createGovernor().govern(h, { target: 'responses', serverContextManagement: [{ type: 'compaction', compact_threshold: 1000 }] }).report.serverEditing).toEqual({ edits: ['compaction'] });
    expect(govern(h, { target: 'anthropic' }).report).not.toHaveProperty('serverEditing');
  });

  it('an Anthropic compaction block stays byte-exact for Anthropic and reaches other targets as its summary text', () => {
    const block = { type: 'compaction', content: 'We listed src and found b.ts largest.' };
    const h = deepFreeze<Message[]>([{ role: 'user', content: 'go on' }, { role: 'assistant', content: [block, { type: 'text', text: 'Continuing.' }] } as unknown as Message, { role: 'user', content: 'next' }]);
    expect(govern(h, { target: 'anthropic' }).messages[1]).toBe(h[1]);
    const { messages, report } = govern(h, { target: 'openai' });
    expect(messages[1].content).toEqual([{ type: 'text', text: '[summary of the earlier conversation (compacted by the provider)]\nWe listed src and found b.ts largest.' }, { type: 'text', text: 'Continuing.' }]);
    expect(reasons(report, 'legalizeForTarget')).toEqual(['server-tool-as-text']);
  });
});
