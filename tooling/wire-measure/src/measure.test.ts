// Issue 25's measurement as a test: every route reaches its stand-in through the real provider
// package, and each client sees exactly the stand-in's verdict (a rejection arrives as the
// provider's error, an accepted request succeeds). Sampled in `pnpm test` (every 50th request
// point of the recorded sessions and their last, every 4th of the model-switch histories and
// their last, at 8k and no budget); all points and budgets with NANOBOT_EXHAUSTIVE=1. Each route
// is governed with its provider's target (as the runner and the AI SDK middleware pick it):
// issue 25's gate, 0 rule violations on the recorded sessions and the newest user turn kept, is
// asserted, and so is 0 on the hand-made model-switch histories (issue 25 item 3: each
// producer's reasoning, signatures and server tool blocks sent to every other target).
import { describe, expect, it } from 'vitest';
import { BEDROCK_RULES, chatRules, CHAT_VENDORS, ANTHROPIC_RULES, ANTHROPIC_BODY_FIELD_RULES, GEMINI_RULES, RESPONSES_RULES } from '@nanobot-internal/provider-wire';
import { formatMeasurement } from './format-measurement.js';
import { measureProviderRules, mergeMeasurements } from './measure.js';
import { BUDGETS, loadHistories } from './histories.js';
import { measurementRoutes } from './routes.js';

const exhaustive = process.env.NANOBOT_EXHAUSTIVE === '1';
// The AI SDK warns on stderr for every replayed part it adapts; the printed report says what matters.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const knownRules = new Set([...BEDROCK_RULES, ...CHAT_VENDORS.flatMap((v) => chatRules(v)), ...ANTHROPIC_RULES, ...ANTHROPIC_BODY_FIELD_RULES, ...GEMINI_RULES, ...RESPONSES_RULES].map((r) => r.id));

describe('provider-rules measurement', () => {
  it('governed for each route\'s provider target, recorded sessions and model switches pass every rule, the newest user turn stays, and every client sees its stand-in\'s verdict', async () => {
    const m = await measureProviderRules(exhaustive ? { stride: 1, target: 'route' } : { stride: 50, switchStride: 4, target: 'route', budgets: BUDGETS.filter((b) => b.label !== '32k') });
    console.log(formatMeasurement(m, { examples: true }));
    for (const t of m.routes) {
      // Issue 25's gate: 0 rule violations on the recorded sessions, per target and budget.
      expect({ route: t.route, rejected: t.byKind.recorded.rejected, examples: t.byKind.recorded.rejected > 0 ? t.examples : {} }).toEqual({ route: t.route, rejected: 0, examples: {} });
      // Issue 25 item 3: the model-switch histories too, and no client refuses one.
      expect({ route: t.route, rejected: t.byKind['model-switch'].rejected, clientErrors: t.clientErrors, examples: t.rejected > 0 ? t.examples : {} }).toEqual({ route: t.route, rejected: 0, clientErrors: {}, examples: {} });
      expect(t.newestUserLost, t.route).toEqual([]);
    }
    expect(m.routes.map((t) => t.route)).toEqual(measurementRoutes().map((r) => r.id));
    for (const t of m.routes) {
      expect(t.mismatches, t.route).toEqual([]);
      expect(t.requests, `${t.route} sent nothing`).toBeGreaterThan(0);
      expect(t.byKind.recorded.requests + t.byKind['model-switch'].requests).toBe(t.requests);
      for (const rule of Object.keys(t.byRule)) expect(knownRules.has(rule), rule).toBe(true);
    }
    expect(m.rejected).toBe(m.routes.reduce((n, t) => n + t.rejected, 0));
  }, exhaustive ? 3_600_000 : 900_000);
});

describe('shards', () => {
  it('split the request points and merge back into the whole run', async () => {
    const histories = loadHistories().filter((h) => h.name === 'gemini-tool-result-then-user' || h.name === 'anthropic-server-tool-blocks');
    const routes = () => measurementRoutes().filter((r) => r.id === 'ai-sdk:gemini' || r.id === 'openai-compatible:mistral');
    const base = { histories, budgets: BUDGETS.slice(0, 1) };
    const whole = await measureProviderRules({ ...base, routes: routes() });
    const parts = [await measureProviderRules({ ...base, routes: routes(), shard: { index: 0, count: 2 } }), await measureProviderRules({ ...base, routes: routes(), shard: { index: 1, count: 2 } })];
    const merged = mergeMeasurements(parts);
    expect(whole.rejected).toBeGreaterThan(0);
    expect({ ...merged, durationMs: 0 }).toEqual({ ...whole, durationMs: 0, routes: whole.routes.map((t) => ({ ...t, examples: merged.routes.find((m) => m.route === t.route)!.examples })) });
  });
});
