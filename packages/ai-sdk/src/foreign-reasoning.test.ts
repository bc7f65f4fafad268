// Issue 25, item 3 on the AI SDK path: a reasoning part that carries another family's signed
// state (Anthropic's signature, Gemini's thought signature, Responses' encrypted content,
// OpenRouter's details) is removed for a target of another family, and the report names the
// change with its rule, as the OpenAI-format path does; its own family's target gets it
// byte-exact, and the default target ('any') leaves it alone.
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality, ruleForReason, TARGET_PROFILES } from '@nanobot/governor';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { modelMessagesToGovernor } from './model-messages-to-governor.js';

const reasonsOf = (report: ReturnType<typeof governModelMessages>['report']) => report.steps.filter((s) => s.step === 'legalizeForTarget').flatMap((s) => s.added.map((e) => e.reason));
const signed = {
  anthropic: { type: 'reasoning' as const, text: 'check the tests first', providerOptions: { anthropic: { signature: 'SIG-ANTHROPIC' } } },
  gemini: { type: 'reasoning' as const, text: 'look at the config', providerOptions: { google: { thoughtSignature: 'SIG-GEMINI' } } },
  responses: { type: 'reasoning' as const, text: '', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC' } } },
};

function history(part: (typeof signed)[keyof typeof signed]): ModelMessage[] {
  return deepFreeze<ModelMessage[]>([
    { role: 'user', content: 'why do the tests fail?' },
    { role: 'assistant', content: [part, { type: 'text', text: 'The fixture is missing.' }] },
    { role: 'user', content: 'fix it' },
  ]);
}

describe('another family’s signed reasoning on the AI SDK path', () => {
  it.each([
    ['anthropic', 'gemini'],
    ['gemini', 'anthropic'],
    ['responses', 'bedrock'],
    ['anthropic', 'mistral'],
  ] as const)('%s reasoning sent to the %s target: removed, reported with its rule', (producer, target) => {
    const h = history(signed[producer]);
    const { messages, report } = governModelMessages(h, { target });
    expect(messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'The fixture is missing.' }] });
    expect(reasonsOf(report)).toEqual(['foreign-reasoning-removed']);
    expect(ruleForReason(TARGET_PROFILES[target], 'foreign-reasoning-removed')?.id).toBe('foreign-artifact');
  });

  it.each([
    ['anthropic', 'anthropic'],
    ['gemini', 'gemini'],
    ['responses', 'responses'],
  ] as const)('%s reasoning sent to its own family (%s): the same objects, nothing reported', (producer, target) => {
    const h = history(signed[producer]);
    const { messages, report } = governModelMessages(h, { target });
    expect(messages[1]).toBe(h[1]);
    expect(reasonsOf(report)).toEqual([]);
  });

  it("the default target ('any') keeps every family's reasoning as it came", () => {
    for (const part of Object.values(signed)) {
      const h = history(part);
      expect(governModelMessages(h).messages[1]).toBe(h[1]);
    }
  });

  it('plain reasoning text (no signed state) is not another family’s: it stays for every target', () => {
    const h = history({ type: 'reasoning', text: 'think', providerOptions: {} } as never);
    expect(governModelMessages(h, { target: 'gemini' }).messages[1]).toBe(h[1]);
  });

  it('checkLegality names the foreign part in the governor view of an ungoverned history, and none after governing', () => {
    const h = history(signed.anthropic);
    const before = checkLegality(modelMessagesToGovernor(h), { target: 'gemini' }).filter((v) => v.rule === 'foreign-artifact');
    expect(before).toHaveLength(1);
    expect(before[0].message).toMatch(/anthropic reasoning part/);
    const after = governModelMessages(h, { target: 'gemini' }).messages;
    expect(checkLegality(modelMessagesToGovernor(after), { target: 'gemini' })).toEqual([]);
  });
});
