// governModelMessages on the 16 recorded sessions converted to ModelMessages: the whole session
// and every 5th prefix that ends at a user turn (all of them with NANOBOT_EXHAUSTIVE=1), at 8k,
// 32k, 128k and no budget, for every target. Each copy, read back in the governor's shape, must
// pass checkLegality for its target, fit the budget unless the report says why not, keep the
// turn being answered, and leave the (deep-frozen) input untouched.
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality, type GovernTarget } from '@nanobot/governor';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { DialectMemo } from '@nanobot/governor/dialect';
import { toGovernorView } from './internal/to-governor-messages.js';
import { loadTranscript, toModelMessages, transcriptFiles } from './test-support/transcripts.js';

const TARGETS: readonly GovernTarget[] = ['any', 'openai', 'anthropic'];
const BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];
const stride = process.env.NANOBOT_EXHAUSTIVE === '1' ? 1 : 5;

function textOf(m: ModelMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

function prefixEnds(messages: readonly ModelMessage[]): number[] {
  const users = messages.flatMap((m, i) => (m.role === 'user' ? [i + 1] : []));
  return [...new Set([...users.filter((_, k) => k % stride === 0), users[users.length - 1], messages.length].filter((n) => n !== undefined))];
}

describe('governModelMessages on the recorded transcripts as ModelMessages', () => {
  const files = transcriptFiles();
  it('finds the 16 transcripts', () => expect(files).toHaveLength(16));

  it('the same check refuses most recordings as they are', () => {
    const illegal = files.filter((f) => checkLegality(toGovernorView(toModelMessages(loadTranscript(f)), 'test', new DialectMemo()).messages, { target: 'any' }).length > 0);
    expect(illegal.length).toBeGreaterThanOrEqual(7);
  });

  it.each(files)('%s: every sampled request is legal for its target and fits, or says why', (file) => {
    const history = deepFreeze(toModelMessages(loadTranscript(file)));
    const snapshot = JSON.stringify(history);
    for (const end of prefixEnds(history)) {
      const prefix = history.slice(0, end);
      const newest = prefix.findLast((m) => m.role === 'user');
      for (const tokens of BUDGETS) {
        for (const target of TARGETS) {
          const where = `${file} [0,${end}) budget ${tokens ?? 'none'} ${target}`;
          const options = tokens === null ? { target } : { target, contextWindowTokens: tokens, contextBlockLimit: tokens };
          const { messages, report } = governModelMessages(prefix, options);
          const view = toGovernorView(messages, 'test', new DialectMemo()).messages;
          expect(checkLegality(view, { target }), where).toEqual([]);
          if (tokens !== null && report.fits) expect(report.tokensAfter, where).toBeLessThanOrEqual(tokens);
          if (tokens !== null && !report.fits) expect(report.overflow?.reason, where).toBe('instructions');
          if (newest !== undefined && !messages.includes(newest)) {
            const t = textOf(newest).trim();
            const shrunk = report.steps.some((s) => s.step === 'shrinkToFit' && s.changed);
            expect(t === '' || messages.some((m) => m.role === 'user' && (textOf(m).includes(t) || (shrunk && textOf(m).trimEnd().endsWith(t.slice(-12))))), where).toBe(true);
          }
        }
      }
    }
    expect(JSON.stringify(history)).toBe(snapshot);
  }, 600_000);
});
