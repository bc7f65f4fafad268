// The target cases of issue 14: developer messages, mid-history system messages, whitespace
// next to tool calls and aborted (content-less) turns, each for every target, checked against
// the providers' stated rules through checkLegality.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';
import { govern } from './govern.js';
import type { GovernTarget } from './steps/target/govern-target.js';
import { EMPTY_USER_CONTENT, legalizeForTarget } from './steps/target/legalize-for-target.js';
import { promptTokens } from './sizing/estimate.js';
import { anthropicTurnViolations } from './test-support/anthropic-turns.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const TARGETS: readonly GovernTarget[] = ['any', 'openai', 'anthropic'];
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'exec', arguments: '{"command":"ls"}' } });
const rules = (messages: readonly Message[], target: GovernTarget) => checkLegality(messages, { target }).map((v) => v.rule);

describe('developer messages are instructions', () => {
  const developer: Message = { role: 'developer', content: 'Answer in French.' };
  const long = (): Message[] => {
    const h: Message[] = [developer];
    for (let i = 0; i < 40; i++) h.push({ role: 'user', content: `question ${i} `.repeat(40) }, { role: 'assistant', content: `answer ${i} `.repeat(40) });
    h.push({ role: 'user', content: 'and now?' });
    return deepFreeze(h);
  };

  it('is never snipped and stays at the head, as developer for OpenAI and as system otherwise', () => {
    const history = long();
    for (const target of TARGETS) {
      const { messages, report } = govern(history, { contextBlockLimit: 1_500, contextWindowTokens: 100_000, target });
      expect(report.steps.find((s) => s.step === 'snipHistory')!.changed).toBe(true);
      expect(messages[0]).toEqual(target === 'openai' ? developer : { role: 'system', content: 'Answer in French.' });
      if (target === 'openai') expect(messages[0]).toBe(developer);
      expect(messages[1].role).toBe('user');
      expect(messages.at(-1)).toBe(history.at(-1));
      expect(checkLegality(messages, { target, budget: 1_500 })).toEqual([]);
      if (target !== 'openai') {
        const legalize = report.steps.find((s) => s.step === 'legalizeForTarget')!;
        expect(legalize.removed).toEqual([{ index: 0, role: 'developer', preview: 'Answer in French.', reason: 'developer-as-system' }]);
        expect(legalize.added).toEqual([{ index: 0, role: 'system', preview: 'Answer in French.', reason: 'developer-as-system' }]);
      }
    }
  });

  it('counts in the budget', () => {
    const big: Message = { role: 'developer', content: 'rule. '.repeat(600) };
    const history = deepFreeze([big, ...long().slice(1)]);
    const { messages, report } = govern(history, { contextBlockLimit: 1_500, contextWindowTokens: 100_000, target: 'openai' });
    expect(messages[0]).toBe(big);
    expect(report.fits).toBe(true);
    expect(promptTokens(messages, {})).toBeLessThanOrEqual(1_500);
    // Less history fits next to the larger instruction.
    const small = govern(long(), { contextBlockLimit: 1_500, contextWindowTokens: 100_000, target: 'openai' }).messages;
    expect(messages.length).toBeLessThan(small.length);
  });

  it('is checked as an instruction (no first-not-user), and Anthropic has no developer role', () => {
    const request = [developer, { role: 'user', content: 'hi' }];
    expect(rules(request, 'openai')).toEqual([]);
    expect(rules(request, 'anthropic')).toEqual(['developer-role']);
    expect(rules(request, 'any')).toEqual(['developer-role']);
    expect(checkLegality(request, { request: true })).toEqual([]);
  });
});

describe('a system message in mid-history', () => {
  const history = deepFreeze<Message[]>([
    { role: 'system', content: 'You are nanobot.' },
    { role: 'user', content: 'Start the build.' },
    { role: 'assistant', content: 'Started.' },
    { role: 'system', content: 'The user switched to plan mode.' },
    { role: 'user', content: 'What next?' },
  ]);

  it('stays in place for OpenAI', () => {
    const { messages } = govern(history, { target: 'openai' });
    expect(messages).toBe(history);
    expect(rules(history, 'openai')).toEqual([]);
  });

  it('becomes a marked user note in place for Anthropic, merged with the next user turn; nothing is lost', () => {
    expect(rules(history, 'anthropic')).toEqual(['instruction-after-start']);
    for (const target of ['anthropic', 'any'] as const) {
      const { messages, report } = govern(history, { target });
      expect(messages).toEqual([
        history[0],
        history[1],
        history[2],
        { role: 'user', content: '[System message]\nThe user switched to plan mode.\n\nWhat next?' },
      ]);
      expect(rules(messages, target)).toEqual([]);
      expect(anthropicTurnViolations(messages)).toEqual([]);
      const legalize = report.steps.find((s) => s.step === 'legalizeForTarget')!;
      expect(legalize.added).toEqual([{ index: 3, role: 'user', preview: '[System message]\nThe user switched to plan mode.', reason: 'instruction-as-user-note' }]);
      const alternation = report.steps.find((s) => s.step === 'enforceRoleAlternation')!;
      expect(alternation.removed.map((m) => m.reason)).toEqual(['merged-same-role', 'merged-same-role']);
    }
  });

  it('keeps list content and the prompt prefix before it byte-stable', () => {
    const withList = deepFreeze<Message[]>([
      ...history.slice(0, 3),
      { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: '  ' }] },
      { role: 'user', content: 'What next?' },
    ]);
    const { messages } = govern(withList, { target: 'anthropic' });
    expect(messages.slice(0, 3)).toEqual(withList.slice(0, 3));
    expect(messages[0]).toBe(withList[0]);
    expect(messages[3].content).toEqual([{ type: 'text', text: '[Developer message]' }, { type: 'text', text: 'Be brief.' }, { type: 'text', text: 'What next?' }]);
    expect(rules(messages, 'anthropic')).toEqual([]);
  });
});

describe('whitespace next to tool calls and content-less turns', () => {
  // As recorded: a reasoning-only turn with "\n\n" next to its calls, an aborted turn stored as
  // null, an empty reply, a whitespace-only user message and an empty tool result.
  const history = deepFreeze<Message[]>([
    { role: 'system', content: 'You are nanobot.' },
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: '\n\n', reasoning_content: 'I should run ls.', tool_calls: [call('a')] },
    { role: 'tool', tool_call_id: 'a', name: 'exec', content: '' },
    { role: 'assistant', content: null },
    { role: 'user', content: '   ' },
    { role: 'assistant', content: '' },
    { role: 'user', content: 'Are you there?' },
  ]);

  it('the raw history breaks the rules each provider states', () => {
    expect(rules(history, 'openai')).toEqual(['empty-content']);
    expect(rules(history, 'anthropic')).toEqual(['blank-text', 'empty-content', 'empty-content', 'empty-content', 'empty-content']);
    expect(checkLegality(history, { target: 'openai' })[0]).toMatchObject({ index: 4, message: 'a assistant message without content and without tool calls' });
  });

  it('governs into a legal request for every target, saying why each message changed', () => {
    for (const target of TARGETS) {
      const { messages, report } = govern(history, { target });
      expect(rules(messages, target), target).toEqual([]);
      if (target !== 'openai') expect(anthropicTurnViolations(messages), target).toEqual([]);
      expect(messages.at(-1)!.content).toContain('Are you there?');
      // The calls and their (marked) result are kept; the reasoning stays on its turn.
      const turn = messages.find((m) => m.tool_calls !== undefined)!;
      expect(turn.reasoning_content).toBe('I should run ls.');
      expect(turn.content).toBe(target === 'openai' ? '\n\n' : null);
      expect(messages.find((m) => m.role === 'tool')!.content).toBe('(exec completed with no output)');
      const reasons = report.steps.find((s) => s.step === 'legalizeForTarget')!.removed.map((m) => m.reason);
      expect(reasons).toEqual([...(target === 'openai' ? [] : ['blank-text-removed']), 'empty-tool-result', 'empty-assistant', 'empty-user', 'empty-assistant']);
    }
  });

  it('OpenAI keeps consecutive user turns; Anthropic gets them merged', () => {
    const openai = govern(history, { target: 'openai' }).messages;
    expect(openai.slice(-2).map((m) => m.content)).toEqual([EMPTY_USER_CONTENT, 'Are you there?']);
    const anthropic = govern(history, { target: 'anthropic' }).messages;
    expect(anthropic.at(-1)!.content).toBe(`${EMPTY_USER_CONTENT}\n\nAre you there?`);
  });

  it('legalizeForTarget alone returns the same array and objects when nothing is wrong', () => {
    const clean = deepFreeze<Message[]>([{ role: 'user', content: 'hi' }, { role: 'assistant', content: '', tool_calls: [call('b')] }, { role: 'tool', tool_call_id: 'b', content: 'ok' }]);
    for (const target of TARGETS) expect(legalizeForTarget(clean, { target }).messages).toBe(clean);
    // Governing the same history twice yields the same rewritten objects (stable prompt prefix).
    const a = govern(history, { target: 'any' }).messages;
    const b = govern(history, { target: 'any' }).messages;
    a.forEach((m, i) => expect(b[i]).toBe(m));
  });
});

describe('tool-call ids Anthropic rejects', () => {
  it('are renamed on the call and its result for Anthropic, kept for OpenAI', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1|fc_9', type: 'function', function: { name: 'exec', arguments: '{}' } }, call('call_1_fc_9')] },
      { role: 'tool', tool_call_id: 'call_1|fc_9', content: 'a' },
      { role: 'tool', tool_call_id: 'call_1_fc_9', content: 'b' },
      { role: 'user', content: 'next' },
    ]);
    expect(rules(history, 'anthropic')).toEqual(['invalid-tool-call-id']);
    expect(rules(history, 'openai')).toEqual([]);
    expect(govern(history, { target: 'openai' }).messages).toBe(history);
    const { messages, report } = govern(history, { target: 'anthropic' });
    expect(rules(messages, 'anthropic')).toEqual([]);
    expect(messages[1].tool_calls!.map((c) => c.id)).toEqual(['call_1_fc_9_2', 'call_1_fc_9']);
    expect(messages[2].tool_call_id).toBe('call_1_fc_9_2');
    expect(messages[3]).toBe(history[3]);
    expect(report.steps.find((s) => s.step === 'legalizeForTarget')!.added.map((m) => [m.index, m.reason])).toEqual([[1, 'tool-call-id-sanitized'], [2, 'tool-call-id-sanitized']]);
  });
});

describe('options', () => {
  it('rejects an unknown target or onOverflow before doing anything', () => {
    expect(() => govern([], { target: 'cohere' as GovernTarget })).toThrow(/options.target must be one of 'openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'mistral', 'deepseek', 'openrouter', 'any', got "cohere"/);
    expect(() => govern([], { onOverflow: 'drop' as 'send' })).toThrow(/options.onOverflow must be 'shrink', 'throw' or 'send'/);
  });

  it('compat reference without a target leaves the target steps off', () => {
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'hi' }, { role: 'assistant', content: null }]);
    const { messages, report } = govern(history, { compat: 'reference' });
    expect(messages).toBe(history);
    expect(report.target).toBeNull();
    expect(report.steps.some((s) => s.step === 'legalizeForTarget')).toBe(false);
    expect(govern(history, { compat: 'reference', target: 'openai' }).messages).toEqual([history[0]]);
  });
});
