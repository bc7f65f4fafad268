// Prompt-prefix reuse through governorMiddleware, as AI SDK users run the governor: the long
// recorded sessions (>= 150 messages) served by one wrapped model, each request point (a prefix
// ending right before an assistant message) a prompt the SDK builds anew, at a 32k window; against
// `govern` on the same sessions with the cut plan threaded by hand (the governor's prefix-reuse
// bench). Reuse per request: the share of the serialised request messages (JSON of each message,
// by characters) identical to the previous request's leading messages. Goal (issue 31): the
// middleware within 0.01 of govern with the plan threaded. Prints figures; asserts nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { govern, type CutPlan } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import type { ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { governorMiddleware, type GovernedCallOptions } from '@nanobot/ai-sdk';
import { toModelMessages } from '../src/test-support/transcripts.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const WINDOW = 32_000;
const MIN_MESSAGES = 150;

/** Request points: prefixes ending right before an assistant message (not after another one). */
function requestEnds(roles: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < roles.length; i++) if (roles[i] === 'assistant' && roles[i - 1] !== 'assistant') out.push(i);
  return out;
}

/** The share of `json` (by characters) equal to the leading messages of `previous`. */
function reuse(outcomes: readonly string[][]): number {
  let shared = 0;
  let total = 0;
  for (let k = 1; k < outcomes.length; k++) {
    const json = outcomes[k];
    const previous = outcomes[k - 1];
    for (let i = 0; i < json.length && i < previous.length && json[i] === previous[i]; i++) shared += json[i].length;
    total += json.reduce((n, s) => n + s.length, 0);
  }
  return total > 0 ? shared / total : 1;
}

/** The provider-level prompt the SDK builds for a ModelMessage list: every message and part a new object. */
function rebuilt(messages: readonly ModelMessage[]): GovernedCallOptions['prompt'] {
  return messages.map((m) => {
    if (m.role === 'system') return { role: 'system', content: m.content };
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map((p) => ({ ...p }));
    return { role: m.role, content };
  }) as GovernedCallOptions['prompt'];
}

const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const sessions = files.map((f) => ({ name: f.replace(/\.json$/, ''), openai: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[] }))
  .filter((s) => s.openai.length >= MIN_MESSAGES)
  .map((s) => ({ ...s, ai: toModelMessages(s.openai) }));

// One wrapped model for every session, as an application serves its users.
const middleware = governorMiddleware({ contextWindowTokens: WINDOW });
const model = new MockLanguageModelV3();
const t0 = performance.now();
console.log(`prefix reuse at a ${WINDOW / 1000}k window, ${sessions.length} sessions with >= ${MIN_MESSAGES} messages`);
console.log(`${'session'.padEnd(50)}${'reqs'.padStart(6)}${'govern + plan'.padStart(16)}${'middleware'.padStart(12)}`);
const byHand: number[] = [];
const through: number[] = [];
for (const s of sessions) {
  let plan: CutPlan | null = null;
  const governed = requestEnds(s.openai.map((m) => m.role)).map((end) => {
    const r = govern(s.openai.slice(0, end), { contextWindowTokens: WINDOW, cutPlan: plan });
    plan = r.cutPlan;
    return r.messages.map((m) => JSON.stringify(m));
  });
  const viaMiddleware: string[][] = [];
  for (const end of requestEnds(s.ai.map((m) => m.role))) {
    const out = await middleware.transformParams!({ type: 'generate', params: { prompt: rebuilt(s.ai.slice(0, end)) }, model });
    viaMiddleware.push(out.prompt.map((m) => JSON.stringify(m)));
  }
  byHand.push(reuse(governed));
  through.push(reuse(viaMiddleware));
  console.log(`${s.name.slice(0, 48).padEnd(50)}${String(governed.length).padStart(6)}${byHand.at(-1)!.toFixed(3).padStart(16)}${through.at(-1)!.toFixed(3).padStart(12)}`);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`mean reuse: govern with the plan threaded by hand ${mean(byHand).toFixed(3)}, governorMiddleware ${mean(through).toFixed(3)}, difference ${(mean(byHand) - mean(through)).toFixed(3)} (goal <= 0.01)`);
console.log(`(whole run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
