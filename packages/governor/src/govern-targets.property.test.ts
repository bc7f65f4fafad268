// Every declared target, on random corrupted histories: the governed copy breaks none of the
// rules the target's profile lists (checkLegality with that target), and the per-provider
// rewrites are the documented ones (Mistral's short ids, the marked turn between tool results
// and a user message, unsigned reasoning-only turns dropped for Anthropic and Bedrock).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';
import { govern } from './govern.js';
import { GOVERN_TARGETS, type GovernTarget } from './steps/target/govern-target.js';
import { TARGET_PROFILES } from './steps/target/profiles/index.js';
import { TARGET_RULE_DOCS, documentedRules } from './steps/target/profiles/docs/index.js';
import { ruleForReason } from './steps/target/target-profile.js';
import { TOOL_RESULTS_RECEIVED } from './steps/target/separate-tool-results-from-user.js';
import { shortToolCallId } from './steps/target/legalize-for-target.js';
import { arbitraryBudget, arbitraryHistory } from './test-support/arbitrary-history.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const TOOLS = [{ type: 'function' as const, function: { name: 'exec', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const call = (id: string, name = 'exec') => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });

const result = (id: string): Message => ({ role: 'tool', tool_call_id: id, name: 'exec', content: 'ok' });
/** A tool step each family makes, with its signed state (a model switch when mixed into another history). */
const FOREIGN_STEPS = {
  anthropic: (id: string): Message[] => [{ role: 'assistant', content: null, tool_calls: [call(id)], thinking_blocks: [{ type: 'thinking', thinking: 't', signature: `sig-${id}` }, { type: 'redacted_thinking', data: `data-${id}` }], reasoning_content: 't' } as Message, result(id)],
  gemini: (id: string): Message[] => [{ role: 'assistant', content: null, tool_calls: [{ ...call(id), extra_content: { google: { thought_signature: `gsig-${id}` } } }] } as Message, result(id)],
  responses: (id: string): Message[] => [{ role: 'assistant', content: null, tool_calls: [call(id)], thinking_blocks: [{ type: 'reasoning', id: `rs_${id}`, encrypted_content: `enc-${id}` }] } as unknown as Message, result(id)],
  openrouter: (id: string): Message[] => [{ role: 'assistant', content: null, tool_calls: [call(id)], reasoning_details: [{ type: 'reasoning.encrypted', id, data: `ord-${id}`, format: 'google-gemini-v1', index: 0 }] } as Message, result(id)],
  'server-tools': (id: string): Message[] => [{ role: 'assistant', content: [{ type: 'text', text: 'searching' }, { type: 'server_tool_use', id: `srvtoolu_${id}`, name: 'web_search', input: { query: 'q' } }, { type: 'web_search_tool_result', tool_use_id: `srvtoolu_${id}`, content: [{ type: 'web_search_result', url: 'https://e.x', title: 'E', encrypted_content: 'x' }] }], tool_calls: [call(id)] } as unknown as Message, result(id)],
  deepseek: (id: string): Message[] => [{ role: 'assistant', content: null, tool_calls: [call(id)], reasoning_content: 'think' } as Message, result(id)],
};

/** The models a target has rules for (OpenRouter's Gemini 3 and Claude thinking, deepseek-reasoner), and none. */
const MODELS: Readonly<Partial<Record<GovernTarget, readonly (string | undefined)[]>>> = {
  openrouter: [undefined, 'google/gemini-3-pro-preview', 'anthropic/claude-sonnet-4.5:thinking'],
  deepseek: [undefined, 'deepseek-reasoner'],
};

/** Histories with the shapes the per-provider rules are about mixed in: reasoning-only turns, user after tool, other families' steps. */
const arbitraryProviderHistory: fc.Arbitrary<Message[]> = fc
  .tuple(arbitraryHistory, fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom('unsigned', 'signed', 'user-after-tool', 'anthropic', 'gemini', 'responses', 'openrouter', 'server-tools', 'deepseek') }), { maxLength: 4 }))
  .map(([history, inserts]) => {
    const out = [...history];
    for (const { at, kind } of inserts) {
      const i = out.length === 0 ? 0 : at % (out.length + 1);
      const step = FOREIGN_STEPS[kind as keyof typeof FOREIGN_STEPS];
      if (step !== undefined) {
        out.splice(i, 0, ...step(`${kind}_${i}`));
      } else if (kind === 'user-after-tool') {
        out.splice(i, 0, { role: 'assistant', content: null, tool_calls: [call(`toolu_${i}_x`)] }, { role: 'tool', tool_call_id: `toolu_${i}_x`, name: 'exec', content: 'ok' }, { role: 'user', content: 'that failed, retry' });
      } else {
        out.splice(i, 0, { role: 'assistant', content: [{ type: 'reasoning', text: 'thinking…', ...(kind === 'signed' ? { signature: 'sig' } : {}) }] } as unknown as Message);
      }
    }
    return out;
  });

describe.each(GOVERN_TARGETS)('target %s', (target: GovernTarget) => {
  it('checkLegality(govern(h, { target }).messages, { target }) is empty for every generated history', () => {
    fc.assert(
      fc.property(arbitraryProviderHistory, arbitraryBudget, fc.constantFrom(...(MODELS[target] ?? [undefined])), (history, budget, model) => {
        const input = deepFreeze(history);
        const withModel = model === undefined ? {} : { model, contextWindowTokens: budget.contextWindowTokens ?? 0, tokenizer: 'cl100k_base' as const };
        const { messages, report } = govern(input, { ...budget, target, tools: TOOLS, ...withModel });
        expect(checkLegality(messages, { target, ...(model === undefined ? {} : { model }) })).toEqual([]);
        // Every rewrite of a target step is reported with a reason that names a declared rule.
        for (const s of report.steps) {
          if (s.step !== 'legalizeForTarget' && s.step !== 'enforceRoleAlternation' && s.step !== 'separateToolResultsFromUser' && s.step !== 'currentTurnReasoning') continue;
          for (const e of [...s.removed, ...s.added]) expect(ruleForReason(TARGET_PROFILES[target], e.reason!), `${target} ${s.step} ${e.reason}`).toBeDefined();
        }
        // The same history gives the same copy (ids included) on the next request.
        expect(govern(input, { ...budget, target, tools: TOOLS, ...withModel }).messages).toEqual(messages);
      }),
      { numRuns: 60 },
    );
  });

  it('declares every rule with a source link and what the governor does', () => {
    const profile = TARGET_PROFILES[target];
    expect(profile.target).toBe(target);
    for (const rule of documentedRules(target)) {
      expect(rule.source).toMatch(/^https:\/\//);
      expect(rule.requires.length).toBeGreaterThan(10);
      expect(rule.does.length).toBeGreaterThan(10);
    }
    expect(new Set(profile.rules.map((r) => r.id)).size).toBe(profile.rules.length);
    // The documentation holds exactly the profile's rules (no wording left for a rule that went).
    expect(Object.keys(TARGET_RULE_DOCS[target]).sort()).toEqual(profile.rules.map((r) => r.id).sort());
  });
});

describe('mistral', () => {
  const history = deepFreeze<Message[]>([
    { role: 'system', content: 's' },
    { role: 'user', content: 'run it' },
    { role: 'assistant', content: null, tool_calls: [call('toolu_01ABC'), call('call_abc-def.1')] },
    { role: 'tool', tool_call_id: 'toolu_01ABC', name: 'exec', content: 'one' },
    { role: 'tool', tool_call_id: 'call_abc-def.1', name: 'exec', content: 'two' },
    { role: 'user', content: 'the environment says: exit code 1' },
    { role: 'assistant', content: null, tool_calls: [call('abcDEF123')] },
    { role: 'tool', tool_call_id: 'abcDEF123', name: 'exec', content: 'three' },
  ]);

  it("maps tool-call ids to 9 alphanumerics (the reference's: the first 9 hex digits of the id's SHA-1), the same on every request, calls and results alike", () => {
    const { messages, report } = govern(history, { target: 'mistral' });
    expect(checkLegality(messages, { target: 'mistral' })).toEqual([]);
    const ids = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids).toEqual([shortToolCallId('toolu_01ABC'), shortToolCallId('call_abc-def.1'), 'abcDEF123']);
    // The reference: hashlib.sha1(tool_call_id.encode()).hexdigest()[:9] for an id Mistral refuses.
    const reference = (id: string): string => createHash('sha1').update(id, 'utf8').digest('hex').slice(0, 9);
    expect(ids.slice(0, 2)).toEqual([reference('toolu_01ABC'), reference('call_abc-def.1')]);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
    expect(govern(structuredClone(history), { target: 'mistral' }).messages).toEqual(messages);
    const legalize = report.steps.find((s) => s.step === 'legalizeForTarget')!;
    expect(legalize.added.map((a) => a.reason)).toEqual(['tool-call-id-mapped', 'tool-call-id-mapped', 'tool-call-id-mapped']);
    expect(ruleForReason(TARGET_PROFILES.mistral, 'tool-call-id-mapped')?.id).toBe('invalid-tool-call-id');
  });

  it('keeps 20,000 mapped ids distinct (collisions take the next candidate)', () => {
    const calls = Array.from({ length: 20_000 }, (_, i) => call(`call_${i}`));
    const many = deepFreeze<Message[]>([{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: calls }, ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, name: 'exec', content: 'r' }))]);
    const { messages } = govern(many, { target: 'mistral' });
    const ids = messages[1].tool_calls!.map((c) => c.id);
    expect(new Set(ids).size).toBe(20_000);
    expect(checkLegality(messages, { target: 'mistral' })).toEqual([]);
  });

  it('puts a marked assistant turn between tool results and a user message, and reports it with its rule', () => {
    const { messages, report } = govern(history, { target: 'mistral' });
    const at = messages.findIndex((m) => m.role === 'user' && m.content === 'the environment says: exit code 1');
    expect(messages[at - 1]).toEqual({ role: 'assistant', content: TOOL_RESULTS_RECEIVED });
    expect(messages[at - 2].role).toBe('tool');
    const step = report.steps.find((s) => s.step === 'separateToolResultsFromUser')!;
    expect(step.added.map((a) => [a.index, a.reason])).toEqual([[at - 1, 'assistant-after-tool-results']]);
    expect(ruleForReason(TARGET_PROFILES.mistral, 'assistant-after-tool-results')?.id).toBe('user-after-tool');
    // The input had it; checkLegality names the rule.
    expect(checkLegality(history, { target: 'mistral' }).map((v) => v.rule)).toContain('user-after-tool');
  });
});

describe('gemini', () => {
  it('never sends two user contents in a row: results then a user message get a marked model turn between', () => {
    const h = deepFreeze<Message[]>([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [call('c1')], extra_content: { google: { thought_signature: 'SIG1' } } } as Message,
      { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'r' },
      { role: 'user', content: 'and now?' },
    ]);
    const { messages } = govern(h, { target: 'gemini' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    // The signature stays on its turn, byte-exact, and is not copied anywhere else.
    expect(messages[1]).toBe(h[1]);
    expect(JSON.stringify(messages).split('SIG1').length).toBe(2);
    expect(checkLegality(messages, { target: 'gemini' })).toEqual([]);
  });
});

describe('reasoning-only turns', () => {
  const h = deepFreeze<Message[]>([
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'half a thought' }] } as unknown as Message,
    { role: 'user', content: 'hello?' },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'signed', signature: 'abc' }] } as unknown as Message,
    { role: 'user', content: 'go on' },
  ]);

  it.each(['anthropic', 'bedrock'] as const)('%s: an aborted turn of unsigned reasoning goes, signed reasoning stays', (target) => {
    const { messages, report } = govern(h, { target });
    expect(messages.some((m) => JSON.stringify(m).includes('half a thought'))).toBe(false);
    expect(messages).toContain(h[3]);
    expect(report.steps.find((s) => s.step === 'legalizeForTarget')!.removed.map((r) => r.reason)).toEqual(['unsigned-reasoning-only']);
    expect(checkLegality(messages, { target })).toEqual([]);
    expect(checkLegality(h, { target }).map((v) => v.rule)).toContain('unsigned-reasoning-turn');
  });

  it("'any' keeps today's output (the turn stays)", () => {
    expect(govern(h, { target: 'any' }).messages).toContain(h[1]);
  });
});

describe('gemini thought signatures', () => {
  const signed = { ...call('c1'), extra_content: { google: { thought_signature: 'REAL' } } };
  const h = deepFreeze<Message[]>([
    { role: 'user', content: 'q' },
    { role: 'assistant', content: null, tool_calls: [call('old')] },
    { role: 'tool', tool_call_id: 'old', name: 'exec', content: 'r' },
    { role: 'user', content: 'go on' },
    { role: 'assistant', content: null, tool_calls: [call('c0'), call('c0b')] },
    { role: 'tool', tool_call_id: 'c0', name: 'exec', content: 'r' },
    { role: 'tool', tool_call_id: 'c0b', name: 'exec', content: 'r' },
    { role: 'assistant', content: null, tool_calls: [signed] } as Message,
    { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'r' },
  ]);

  it("gives the current turn's unsigned first call Google's placeholder, leaves real signatures and earlier turns alone", () => {
    expect(checkLegality(h, { target: 'gemini' }).map((v) => v.rule).sort()).toEqual(['current-turn-signature', 'user-after-tool']);
    const { messages, report } = govern(h, { target: 'gemini' });
    // (index 3: the marked model turn between the result and the user message)
    expect(messages[1]).toBe(h[1]);
    expect(messages[5].tool_calls![0]).toEqual({ ...call('c0'), extra_content: { google: { thought_signature: 'skip_thought_signature_validator' } } });
    expect(messages[5].tool_calls![1]).toBe(h[4].tool_calls![1]);
    expect(messages[8]).toBe(h[7]);
    expect(report.steps.find((s) => s.step === 'placeholderThoughtSignatures')!.added.map((a) => [a.index, a.reason])).toEqual([[5, 'thought-signature-placeholder']]);
    expect(checkLegality(messages, { target: 'gemini' })).toEqual([]);
  });
});
