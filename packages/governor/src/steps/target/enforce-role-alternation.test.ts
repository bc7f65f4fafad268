import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { enforceRoleAlternation } from './enforce-role-alternation.js';
import { deepFreeze, jsonClean, loadCases } from '@nanobot-internal/test-support';

/** Documented deviations (README "Deviations"): the reference loses content or emits illegal roles. */
const DEVIATIONS: Record<string, string> = {
  user_list_then_str: 'merging a list with a string keeps both as text blocks (reference keeps only the later)',
  user_str_then_list: 'merging a string with a list keeps both as text blocks (reference keeps only the later)',
  assistant_list_merge: 'merging list-content assistants keeps both (reference keeps only the later)',
  assistant_text_then_tools: "the assistant's text is kept on the tool-call turn (reference drops it)",
  assistant_tools_then_text: 'a text-only assistant after a tool-call turn is merged into it (reference drops it)',
  assistant_tools_then_tools: 'two consecutive tool-call turns are merged, calls and text kept (reference keeps the later)',
  system_and_trailing_assistant_tools: 'a recovered user turn never carries tool_calls (reference emits user+tool_calls)',
  merge_then_only_system_recovery: 'a recovered user turn never carries tool_calls; merged text kept',
  system_tool_call_assistant_first: 'a leading tool-call assistant also gets the (conversation continued) user turn (Anthropic needs a user turn first)',
};

function textPieces(content: unknown): string[] {
  if (typeof content === 'string') return content.trim() ? [content.trim()] : [];
  if (Array.isArray(content)) return content.flatMap((p: { type?: unknown; text?: unknown } | null) => (p?.type === 'text' && typeof p.text === 'string' && p.text.trim() ? [p.text.trim()] : []));
  return [];
}

/** Why the reference output would differ from ours, judged from the input alone (null: it must not). */
function lossReason(input: Message[], expected: Message[]): string | null {
  if (expected.some((m) => m.role === 'user' && m.tool_calls)) return 'recovered user carries tool_calls';
  const first = expected.find((m) => m.role !== 'system');
  if (first?.role === 'assistant' && first.tool_calls) return 'leading tool-call assistant';
  for (let i = 1; i < input.length; i++) {
    const a = input[i - 1];
    const b = input[i];
    if (a.role !== b.role || (a.role !== 'user' && a.role !== 'assistant')) continue;
    const nonString = (c: unknown) => c !== null && c !== undefined && typeof c !== 'string';
    if (nonString(a.content) || nonString(b.content)) return 'merge involving list content';
    if (a.role === 'assistant' && (a.tool_calls?.length || b.tool_calls?.length)) return 'assistant pair with tool calls';
  }
  return null;
}

function assertLossless(input: Message[], output: Message[]): void {
  const lastAnchor = input.findLastIndex((m) => m.role === 'user' || m.role === 'tool');
  const outText = output.map((m) => JSON.stringify(m.content ?? '')).join('\n');
  input.forEach((m, i) => {
    if (i > lastAnchor || (m.role !== 'user' && m.role !== 'assistant')) return;
    for (const piece of textPieces(m.content)) expect(outText).toContain(JSON.stringify(piece).slice(1, -1));
  });
  expect(output.some((m) => m.role === 'user' && m.tool_calls !== undefined)).toBe(false);
  const first = output.find((m) => m.role !== 'system');
  if (first !== undefined) expect(first.role === 'user' || first.role === 'tool').toBe(true);
}

const tally = { exact: 0, deviations: 0 };
afterAll(() => console.log(`role alternation conformance (defaults): ${tally.exact} exact, ${tally.deviations} documented deviations`));

describe.each(['role_alternation/handwritten.json', 'role_alternation/fuzz.json'])('conformance %s', (file) => {
  const cases = loadCases(file);
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const input = deepFreeze(c.input.messages as Message[]);
    // compat 'reference' reproduces every case exactly.
    expect(jsonClean(enforceRoleAlternation(input, { compat: 'reference' }))).toEqual(c.expected);
    const ours = jsonClean(enforceRoleAlternation(input));
    const reason = DEVIATIONS[c.name] ?? lossReason(input, c.expected);
    if (isDeepStrictEqual(ours, c.expected)) {
      tally.exact++;
      return;
    }
    expect(reason, `unexpected deviation in ${c.name}`).not.toBeNull();
    tally.deviations++;
    assertLossless(input, ours);
  });
});

describe('enforceRoleAlternation (fixed defaults)', () => {
  const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'exec', arguments: '{}' } });

  it('returns the same list when already alternating', () => {
    const msgs = deepFreeze<Message[]>([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }]);
    expect(enforceRoleAlternation(msgs)).toBe(msgs);
  });

  it('keeps the text of an assistant followed by a tool-call assistant', () => {
    const out = enforceRoleAlternation(deepFreeze<Message[]>([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'let me look' },
      { role: 'assistant', content: null, tool_calls: [call('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
    ]));
    expect(out[1]).toEqual({ role: 'assistant', content: 'let me look', tool_calls: [call('c1')] });
  });

  it('merges list and string user content as blocks', () => {
    const out = enforceRoleAlternation(deepFreeze<Message[]>([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:x' } }] },
      { role: 'user', content: 'what is this?' },
    ]));
    expect(out).toEqual([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:x' } }, { type: 'text', text: 'what is this?' }] }]);
  });

  it('recovers a lone tool-call assistant as a plain user turn', () => {
    const out = enforceRoleAlternation(deepFreeze<Message[]>([
      { role: 'system', content: 's' },
      { role: 'assistant', content: 'plan', tool_calls: [call('c1')], reasoning_content: 'r' },
    ]));
    expect(out).toEqual([{ role: 'system', content: 's' }, { role: 'user', content: 'plan' }]);
  });

  it('keeps the input objects for untouched messages', () => {
    const user = { role: 'user', content: 'u' } as Message;
    const out = enforceRoleAlternation(deepFreeze<Message[]>([user, { role: 'assistant', content: 'a' }]));
    expect(out[0]).toBe(user);
    expect(out).toHaveLength(1);
  });
});
