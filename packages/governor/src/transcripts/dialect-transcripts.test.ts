// The 16 recorded sessions converted to each dialect (Anthropic MessageParams, Responses input
// items), governed through governAnthropic / governResponses: sampled prefixes ending at a user
// turn (evenly spaced, deterministic) and the whole session, at 8k / 32k / 128k / no budget.
// scripts/dialect-transcripts.ts runs every prefix.
import { describe, expect, it } from 'vitest';
import { anthropicRequestViolations } from '../test-support/anthropic-request-rules.js';
import { DIALECT_BUDGETS, anthropicSession, checkAnthropicRequest, checkResponsesRequest, responsesSession } from '../test-support/dialect-suite.js';
import { responsesRequestViolations } from '../test-support/responses-request-rules.js';
import { loadTranscript, transcriptFiles } from '../test-support/node/transcripts.js';

const SAMPLES = 5;

function sample(prefixes: readonly number[], whole: number): number[] {
  const picked = new Set<number>();
  for (let k = 0; k < SAMPLES && prefixes.length > 0; k++) picked.add(prefixes[Math.floor(((k + 1) * (prefixes.length - 1)) / SAMPLES)]);
  picked.add(whole);
  return [...picked].sort((a, b) => a - b);
}

const files = transcriptFiles();
const tally = { anthropicRaw: 0, responsesRaw: 0 };

describe.each(files)('%s in each dialect', (file) => {
  const history = loadTranscript(file);
  const a = anthropicSession(history);
  const r = responsesSession(history);

  it.each(DIALECT_BUDGETS.map((t) => [t ?? 'none', t] as const))('governAnthropic at %s: legal, within budget, newest user turn sent', (_label, tokens) => {
    for (const n of sample(a.prefixes, a.messages.length)) {
      const { problems } = checkAnthropicRequest(a.system, a.messages.slice(0, n), tokens);
      expect(problems, `${file} first ${n} turns`).toEqual([]);
    }
  });

  it.each(DIALECT_BUDGETS.map((t) => [t ?? 'none', t] as const))('governResponses at %s: legal, within budget, newest user turn sent', (_label, tokens) => {
    for (const n of sample(r.prefixes, r.input.length)) {
      const { problems } = checkResponsesRequest(r.input.slice(0, n), tokens);
      expect(problems, `${file} first ${n} items`).toEqual([]);
    }
  });

  it('the stored session itself breaks the rules the governed copy keeps (the checks can fail)', () => {
    if (anthropicRequestViolations(a.messages).length > 0) tally.anthropicRaw++;
    if (responsesRequestViolations(r.input).length > 0) tally.responsesRaw++;
  });
});

describe('the rule checks', () => {
  it('reject most of the stored sessions as they are', () => {
    // Whole sessions end with an assistant turn, hold aborted turns, reused ids, unanswered calls.
    expect(tally.anthropicRaw).toBeGreaterThanOrEqual(files.length / 2);
    expect(tally.responsesRaw).toBeGreaterThan(0);
  });
});
