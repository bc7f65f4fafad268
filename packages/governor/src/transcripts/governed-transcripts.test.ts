// govern + enforceRoleAlternation on the 16 real recorded sessions in fixtures/transcripts
// (pi-mono, Claude Code, OpenHands, SWE-agent, tau-bench): the whole transcript and every
// prefix that ends at a user turn (the request a client sends for that turn), at input budgets
// of 8k, 32k, 128k, 200k tokens and without one. All prefixes at all budgets: 1,785 governed
// requests, about 15 s on one core, so nothing is sampled.
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from '../check-legality.js';
import { enforceRoleAlternation } from '../steps/target/enforce-role-alternation.js';
import { govern } from '../govern.js';
import type { GovernReport } from '../report/govern-report.js';
import type { GovernTarget } from '../steps/target/govern-target.js';
import { anthropicTurnViolations } from '../test-support/anthropic-turns.js';
import { SUITE_BUDGETS, budgetOptions, loadTranscript, manifestEntry, prefixStride, sampledPrefixEnds, transcriptFiles } from '../test-support/node/transcripts.js';

const TARGETS: readonly GovernTarget[] = ['any', 'openai', 'anthropic'];

const files = transcriptFiles();

function isValidCall(call: unknown): boolean {
  const fn = (call as { function?: { name?: unknown } } | null)?.function;
  return typeof fn?.name === 'string' && fn.name.length > 0;
}

function callCount(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) if (m.role === 'assistant') n += (m.tool_calls ?? []).filter(isValidCall).length;
  return n;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
}

/**
 * Whether the newest user turn of `prefix` is in the copy: the same object, or a user message
 * whose text holds it (merged with a neighbour), or, when shrinkToFit shortened it, its end
 * (the cut keeps the head and the tail).
 */
function keepsNewestUser(prefix: readonly Message[], messages: readonly Message[], report: GovernReport): boolean {
  const lastUser = prefix.findLast((m) => m.role === 'user');
  if (lastUser === undefined || messages.includes(lastUser)) return true;
  const text = textOf(lastUser.content).trim();
  const users = messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  if (text === '') return users.length > 0;
  if (users.some((t) => t.includes(text))) return true;
  const shrunk = report.steps.some((st) => st.step === 'shrinkToFit' && st.changed);
  return shrunk && users.some((t) => t.trimEnd().endsWith(text.slice(-12)));
}

const tally = new Map<string, { requests: number; unfittable: number }>();

/** Governs one request for one target and checks everything the issue asks of it. */
function checkOne(prefix: readonly Message[], tokens: number | null, target: GovernTarget, where: string): void {
  const { messages, report } = govern(prefix, { ...budgetOptions(tokens), target });
  const budget = tokens ?? 0;
  expect(report.budget, where).toBe(budget);
  expect(report.target, where).toBe(target);

  // Every rule the target API states, checked from its rules (not from what govern does).
  expect(checkLegality(messages, { target }), where).toEqual([]);
  if (target !== 'openai') {
    // The same request as Anthropic turns (results as tool_result blocks of the next user turn).
    expect(anthropicTurnViolations(messages), where).toEqual([]);
    // Nothing left for a provider to fix: role alternation has nothing to do.
    expect(enforceRoleAlternation(messages), where).toBe(messages);
  }

  // The turn being answered is always sent.
  expect(keepsNewestUser(prefix, messages, report), where).toBe(true);

  const t = tally.get(target) ?? { requests: 0, unfittable: 0 };
  t.requests++;
  tally.set(target, t);
  if (budget > 0) {
    expect(report.fits, where).toBeTypeOf('boolean');
    expect(report.tokensBefore, where).toBeTypeOf('number');
    if (report.fits) {
      expect(checkLegality(messages, { budget }), where).toEqual([]);
      expect(report.tokensAfter, where).toBeLessThanOrEqual(budget);
      expect(report.overflow, where).toBeUndefined();
    } else {
      // Only when nothing the governor may cut could make it fit: the instructions alone.
      t.unfittable++;
      expect(report.overflow?.reason, where).toBe('instructions');
      expect(report.overflow!.instructionTokens, where).toBeGreaterThanOrEqual(budget);
    }
  } else {
    expect(report.fits, where).toBeUndefined();
    // Without a budget nothing is snipped: every valid call is still there.
    expect(callCount(messages), where).toBe(callCount(prefix));
    if (target === 'openai') {
      const texts = messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
      expect(texts.length, where).toBe(prefix.filter((m) => m.role === 'user').length);
    }
  }

  // The report chains: each step starts where the previous one ended, and ends at the output.
  expect(report.messagesBefore, where).toBe(prefix.length);
  expect(report.messagesAfter, where).toBe(messages.length);
  let count = prefix.length;
  for (const step of report.steps) {
    expect(step.messagesBefore, `${where} ${step.step}`).toBe(count);
    count = step.messagesAfter;
  }
  expect(count, where).toBe(messages.length);
}

describe('govern on the 16 recorded transcripts', () => {
  it('finds the 16 transcripts', () => {
    expect(files).toHaveLength(16);
  });

  it('the same checks reject the raw recordings wherever the manifest lists a wire defect', () => {
    const wireDefects = ['missing_tool_result', 'duplicate_tool_call_id', 'ends_with_unanswered_tool_calls'];
    let defective = 0;
    for (const file of files) {
      const raw = loadTranscript(file);
      const counts = manifestEntry(file).stats.defect_counts;
      const expected = wireDefects.some((d) => (counts[d] ?? 0) > 0);
      if (expected) defective++;
      expect(checkLegality(raw).length > 0, file).toBe(expected);
      // Consecutive user turns or a leading assistant break the strict role rules as recorded.
      if ((counts.consecutive_user ?? 0) > 0) expect(checkLegality(raw, { request: true }).some((v) => v.rule === 'consecutive-same-role'), file).toBe(true);
      if (expected || (counts.consecutive_user ?? 0) > 0) expect(anthropicTurnViolations(raw), file).not.toEqual([]);
    }
    expect(defective).toBe(7);
  });

  describe.each(files)('%s', (file) => {
    it.each(SUITE_BUDGETS)('budget $label: the whole transcript and prefixes ending at a user turn govern legally for every target', ({ label, tokens }) => {
      const input = loadTranscript(file);
      const snapshot = JSON.stringify(input);
      const ends = sampledPrefixEnds(input);
      expect(ends.length).toBeGreaterThan(0);
      for (const target of TARGETS) {
        for (const end of ends) {
          // slice() keeps the frozen message objects: any write to one throws.
          checkOne(input.slice(0, end), tokens, target, `${file} [0,${end}) at ${label} for ${target}`);
        }
      }
      expect(JSON.stringify(input)).toBe(snapshot);
    });
  });
});

afterAll(() => {
  const stride = prefixStride();
  console.log(`recorded transcripts (${stride === 1 ? 'every prefix' : `every ${stride}th prefix + whole sessions`}):`, Object.fromEntries(tally));
});
