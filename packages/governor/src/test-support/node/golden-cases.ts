// The before/after recording of the governor's behaviour (issue 31): `govern` and the dialect
// entry points on every recorded session in fixtures/transcripts, at 8k / 32k / 128k windows
// (and without one), in the shapes a caller uses them — sampled user-turn prefixes governed
// one after the other (the warm, resumed path), every target, the reference mode, a runner's
// request points with the cut plan and compacted ids threaded, offload through a store, the
// optional steps. Each governed request is reduced to a hash of its JSON (messages, report,
// cut plan); `test/golden/govern-outputs.json` holds the hashes recorded before the pipeline
// redesign, and a few whole outputs in `test/golden/full/` show a difference in readable form.
// scripts/record-golden.ts writes them; src/transcripts/golden-outputs.test.ts compares.
import { createHash } from 'node:crypto';
import type { Message } from '@nanobot/schema';
import { governAnthropic } from '../../dialects/anthropic/govern-anthropic.js';
import { govern, type GovernOptions } from '../../govern.js';
import type { CutPlan } from '../../steps/cut/cut-plan.js';
import type { GovernTarget } from '../../steps/target/govern-target.js';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { governResponses } from '../../dialects/responses/govern-responses.js';
import { createUsageCalibrator } from '../../sizing/usage-calibrator.js';
import { anthropicSession, responsesSession } from '../dialect-suite.js';
import { budgetOptions, loadTranscript, transcriptFiles, userTurnPrefixLengths } from './transcripts.js';

/** One recorded output: a short hash of its JSON. */
export function outputHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** Every `stride`-th user-turn prefix (from the first), the last one and the whole session. */
function prefixEnds(messages: readonly Message[], stride: number): number[] {
  const all = userTurnPrefixLengths(messages);
  const picked = all.filter((_, k) => k % stride === 0);
  if (all.length > 0) picked.push(all[all.length - 1]);
  picked.push(messages.length);
  return [...new Set(picked)].sort((a, b) => a - b);
}

/** Request points of a runner: prefixes ending right before an assistant message, every `stride`-th. */
function requestEnds(messages: readonly Message[], stride: number): number[] {
  const out: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'assistant' && messages[i - 1].role !== 'assistant') out.push(i);
  return out.filter((_, k) => k % stride === 0);
}

const BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];
const label = (tokens: number | null): string => (tokens === null ? 'none' : `${tokens / 1000}k`);

const TOOLS = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  { type: 'function', function: { name: 'exec', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } },
];

/** A named sequence of governed requests over one session; `run` returns each output's JSON value. */
export interface GoldenCase {
  name: string;
  run: (history: readonly Message[]) => unknown[];
}

function governed(history: readonly Message[], ends: readonly number[], options: (end: number) => GovernOptions): unknown[] {
  return ends.map((end) => {
    const r = govern(history.slice(0, end), options(end));
    return { messages: r.messages, report: r.report, cutPlan: r.cutPlan };
  });
}

/** A runner's session: request points in order, the cut plan threaded, compacted ids per user turn. */
function threaded(history: readonly Message[], stride: number, base: GovernOptions): unknown[] {
  let plan: CutPlan | null = null;
  let ids = new Set<string>();
  let runStart = -1;
  const store = new MemoryArtifactStore();
  return requestEnds(history, stride).map((end) => {
    const prefix = history.slice(0, end);
    const lastUser = prefix.findLastIndex((m) => m.role === 'user');
    if (lastUser !== runStart) {
      runStart = lastUser;
      ids = new Set();
    }
    const r = govern(prefix, { ...base, artifactStore: store, sessionKey: 's', cutPlan: plan, compactedToolCallIds: ids, inflightStartIndex: lastUser + 1 });
    plan = r.cutPlan;
    return { messages: r.messages, report: r.report, cutPlan: r.cutPlan, ids: [...ids] };
  });
}

/** The governor's cases (OpenAI-shaped `govern`). */
export function governCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const tokens of BUDGETS) {
    for (const target of ['any', 'openai', 'anthropic'] as GovernTarget[]) {
      const stride = target === 'any' ? 5 : 9;
      cases.push({ name: `prefixes ${label(tokens)} ${target}`, run: (h) => governed(h, prefixEnds(h, stride), () => ({ ...budgetOptions(tokens), target })) });
    }
    cases.push({ name: `prefixes ${label(tokens)} reference`, run: (h) => governed(h, prefixEnds(h, 9), () => ({ ...budgetOptions(tokens), compat: 'reference' })) });
    // Windows in the model's terms (reply reserved, tools counted), as callers set them.
    if (tokens !== null) {
      cases.push({
        name: `window ${label(tokens)} tools offload`,
        run: (h) => governed(h, prefixEnds(h, 10), (end) => ({
          contextWindowTokens: tokens, maxOutputTokens: 1_024, tools: TOOLS, maxToolResultChars: 2_000,
          artifactStore: new MemoryArtifactStore(), sessionKey: 'golden', inflightStartIndex: Math.floor(end / 2), compactedToolCallIds: new Set(),
        })),
      });
    }
  }
  for (const tokens of [8_000, 32_000]) {
    cases.push({ name: `runner ${label(tokens)} stable cuts`, run: (h) => threaded(h, 4, { ...budgetOptions(tokens), maxToolResultChars: 4_000, tools: TOOLS }) });
  }
  cases.push({ name: 'runner 32k tightest', run: (h) => threaded(h, 7, { ...budgetOptions(32_000), cuts: 'tightest' }) });
  cases.push({ name: 'runner 32k ratio 0.8', run: (h) => threaded(h, 9, { ...budgetOptions(32_000), cutTargetRatio: 0.8 }) });
  cases.push({ name: 'whole 8k send', run: (h) => governed(h, [h.length], () => ({ ...budgetOptions(8_000), onOverflow: 'send' })) });
  cases.push({ name: 'whole 32k keep-recent 3', run: (h) => governed(h, [h.length], () => ({ ...budgetOptions(32_000), keepRecentCompactableResults: 3 })) });
  cases.push({ name: 'whole estimate tokens', run: (h) => governed(h, [h.length], () => ({ estimateTokens: true, maxToolResultChars: 0 })) });
  cases.push({
    name: 'whole model gpt-4o calibrated 32k',
    run: (h) => {
      const calibrator = createUsageCalibrator();
      calibrator.observe({ model: 'gpt-4o', estimated: 10_000, actual: 11_500 });
      return governed(h, prefixEnds(h, 25), () => ({ model: 'gpt-4o', tokenizer: 'cl100k_base', contextWindowTokens: 32_000, calibrator }));
    },
  });
  cases.push({ name: 'whole o200k 128k', run: (h) => governed(h, [h.length], () => ({ ...budgetOptions(128_000), tokenizer: 'o200k_base' })) });
  return cases;
}

/** The dialect entry points' cases (`governAnthropic`, `governResponses`). */
export function dialectCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const tokens of BUDGETS) {
    cases.push({
      name: `anthropic ${label(tokens)}`,
      run: (h) => {
        const a = anthropicSession(h);
        const ends = [...new Set([...a.prefixes.filter((_, k) => k % 15 === 0), a.messages.length])];
        return ends.map((n) => governAnthropic(a.system === undefined ? { messages: a.messages.slice(0, n) } : { system: a.system, messages: a.messages.slice(0, n) }, budgetOptions(tokens)));
      },
    });
    cases.push({
      name: `responses ${label(tokens)}`,
      run: (h) => {
        const r = responsesSession(h);
        const ends = [...new Set([...r.prefixes.filter((_, k) => k % 15 === 0), r.input.length])];
        return ends.map((n) => governResponses(r.input.slice(0, n), budgetOptions(tokens)));
      },
    });
  }
  return cases;
}

/** Hashes of every case on one session: `"<file> | <case>"` → one hash per governed request. */
export function recordFile(file: string, cases: readonly GoldenCase[]): Record<string, string[]> {
  const history = loadTranscript(file);
  const out: Record<string, string[]> = {};
  for (const c of cases) out[`${file} | ${c.name}`] = c.run(history).map(outputHash);
  return out;
}

/** {@link recordFile} for every recorded session. */
export function recordAll(cases: readonly GoldenCase[]): Record<string, string[]> {
  return Object.assign({}, ...transcriptFiles().map((f) => recordFile(f, cases))) as Record<string, string[]>;
}

/** The whole outputs kept readable: two short sessions' full sequences at 8k and 32k. */
export const FULL_GOLDENS: readonly { file: string; case: string }[] = [
  { file: 'sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json', case: 'runner 8k stable cuts' },
  { file: 'SWE-agent-SWE-agent__marshmallow-1867-function-calling-demo.json', case: 'prefixes 32k any' },
];
