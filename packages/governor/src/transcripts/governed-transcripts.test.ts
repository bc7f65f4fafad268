// govern + enforceRoleAlternation on the 16 real recorded sessions in fixtures/transcripts
// (pi-mono, Claude Code, OpenHands, SWE-agent, tau-bench): the whole transcript and every
// prefix that ends at a user turn (the request a client sends for that turn), at input budgets
// of 8k, 32k, 128k, 200k tokens and without one. All prefixes at all budgets: 1,785 governed
// requests, about 15 s on one core, so nothing is sampled.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from '../check-legality.js';
import { enforceRoleAlternation } from '../enforce-role-alternation.js';
import { govern } from '../govern.js';
import { anthropicTurnViolations } from '../test-support/anthropic-turns.js';
import { SUITE_BUDGETS, budgetOptions, loadTranscript, manifestEntry, transcriptFiles, userTurnPrefixLengths } from '../test-support/transcripts.js';

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

/** Whether the system prompt plus the last user turn alone exceed the budget (then nothing can fit). */
function floorExceeds(prefix: readonly Message[], budget: number): boolean {
  const lastUser = prefix.findLast((m) => m.role === 'user');
  if (lastUser === undefined) return false;
  const floor = [...prefix.filter((m) => m.role === 'system'), lastUser];
  return checkLegality(floor, { budget }).some((v) => v.rule === 'over-budget');
}

/** Governs one request and checks everything the issue asks of it; returns whether it had to exceed the budget. */
function checkOne(prefix: readonly Message[], tokens: number | null, where: string): { unfittable: boolean } {
  const { messages, report } = govern(prefix, budgetOptions(tokens));
  const budget = tokens ?? 0;
  expect(report.budget, where).toBe(budget);

  // Every call answered right after its turn, no orphan or duplicate result, ids unique.
  expect(checkLegality(messages), where).toEqual([]);
  const request = enforceRoleAlternation(messages);
  // User first, no two user or assistant turns in a row, no trailing assistant (OpenAI, strict).
  expect(checkLegality(request, { request: true }), where).toEqual([]);
  // The same request as Anthropic turns (results as tool_result blocks of the next user turn).
  expect(anthropicTurnViolations(request), where).toEqual([]);

  // The turn being answered is always sent, as the object the client stored.
  const lastUser = prefix.findLast((m) => m.role === 'user');
  if (lastUser !== undefined) expect(messages.includes(lastUser), where).toBe(true);

  const inputUsers = prefix.filter((m) => m.role === 'user');
  const keptUsers = messages.filter((m) => m.role === 'user');
  let unfittable = false;
  if (budget > 0) {
    unfittable = floorExceeds(prefix, budget);
    if (!unfittable) {
      expect(checkLegality(messages, { budget }), where).toEqual([]);
      expect(checkLegality(request, { budget }), where).toEqual([]);
    }
    // Snipping drops the oldest turns first: the user turns kept are the newest ones, in order.
    expect(keptUsers, where).toEqual(inputUsers.slice(inputUsers.length - keptUsers.length));
    expect(report.tokensBefore, where).toBeTypeOf('number');
    if (!unfittable) expect(report.tokensAfter, where).toBeLessThanOrEqual(budget);
  } else {
    // Without a budget nothing is snipped: every user turn and every valid call is still there.
    expect(keptUsers, where).toEqual(inputUsers);
    expect(callCount(messages), where).toBe(callCount(prefix));
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
  return { unfittable };
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
    it.each(SUITE_BUDGETS)('budget $label: the whole transcript and every prefix ending at a user turn govern legally', ({ label, tokens }) => {
      const input = loadTranscript(file);
      const snapshot = JSON.stringify(input);
      const ends = [...new Set([...userTurnPrefixLengths(input), input.length])];
      expect(ends.length).toBeGreaterThan(0);
      let unfittable = 0;
      for (const end of ends) {
        // slice() keeps the frozen message objects: any write to one throws.
        if (checkOne(input.slice(0, end), tokens, `${file} [0,${end}) at ${label}`).unfittable) unfittable++;
      }
      // Only the 8k budget meets last user turns that alone exceed it (Claude Code summaries,
      // pasted logs); everything larger always fits.
      if (tokens === null || tokens >= 32_000) expect(unfittable).toBe(0);
      expect(JSON.stringify(input)).toBe(snapshot);
    });
  });
});
