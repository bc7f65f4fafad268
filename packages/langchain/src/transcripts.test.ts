// governBaseMessages on the 16 recorded sessions converted to BaseMessages: the whole session
// and every 5th prefix that ends at a user turn (all of them with NANOBOT_EXHAUSTIVE=1), at 8k,
// 32k, 128k and no budget, for every target. Each copy, read back in the governor's shape, must
// pass checkLegality for its target, fit the budget unless the report says why not, and keep
// the turn being answered; the input messages are left as they were.
import type { BaseMessage } from '@langchain/core/messages';
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality, type GovernTarget } from '@nanobot/governor';
import { describe, expect, it } from 'vitest';
import { governBaseMessages } from './govern-base-messages.js';
import { DialectMemo } from '@nanobot/governor/dialect';
import { toGovernorView } from './internal/to-governor-messages.js';
import { loadTranscript, toBaseMessages, transcriptFiles } from './test-support/transcripts.js';

const TARGETS: readonly GovernTarget[] = ['any', 'openai', 'anthropic'];
const BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];
const stride = process.env.NANOBOT_EXHAUSTIVE === '1' ? 1 : 5;

function prefixEnds(messages: readonly BaseMessage[]): number[] {
  const users = messages.flatMap((m, i) => (m.type === 'human' ? [i + 1] : []));
  return [...new Set([...users.filter((_, k) => k % stride === 0), users[users.length - 1], messages.length].filter((n) => n !== undefined))];
}

const snapshotOf = (list: readonly BaseMessage[]) => JSON.stringify(list.map((m) => [m.type, m.content, (m as { tool_calls?: unknown }).tool_calls, (m as { tool_call_id?: unknown }).tool_call_id]));

describe('governBaseMessages on the recorded transcripts as BaseMessages', () => {
  const files = transcriptFiles();
  it('finds the 16 transcripts', () => expect(files).toHaveLength(16));

  it('the same check refuses most recordings as they are', () => {
    const illegal = files.filter((f) => checkLegality(toGovernorView(toBaseMessages(loadTranscript(f)), 'test', new DialectMemo()), { target: 'any' }).length > 0);
    expect(illegal.length).toBeGreaterThanOrEqual(7);
  });

  it.each(files)('%s: every sampled request is legal for its target and fits, or says why', (file) => {
    const history = deepFreeze(toBaseMessages(loadTranscript(file)));
    const snapshot = snapshotOf(history);
    for (const end of prefixEnds(history)) {
      const prefix = history.slice(0, end);
      const newest = prefix.findLast((m) => m.type === 'human');
      for (const tokens of BUDGETS) {
        for (const target of TARGETS) {
          const where = `${file} [0,${end}) budget ${tokens ?? 'none'} ${target}`;
          const options = tokens === null ? { target } : { target, contextWindowTokens: tokens, contextBlockLimit: tokens };
          const { messages, report } = governBaseMessages(prefix, options);
          expect(checkLegality(toGovernorView(messages, 'test', new DialectMemo()), { target }), where).toEqual([]);
          if (tokens !== null && report.fits) expect(report.tokensAfter, where).toBeLessThanOrEqual(tokens);
          if (tokens !== null && !report.fits) expect(report.overflow?.reason, where).toBe('instructions');
          if (newest !== undefined && !messages.includes(newest)) {
            const t = newest.text.trim();
            const shrunk = report.steps.some((s) => s.step === 'shrinkToFit' && s.changed);
            expect(t === '' || messages.some((m) => m.type === 'human' && (m.text.includes(t) || (shrunk && m.text.trimEnd().endsWith(t.slice(-12))))), where).toBe(true);
          }
        }
      }
    }
    expect(snapshotOf(history)).toBe(snapshot);
  }, 600_000);
});
