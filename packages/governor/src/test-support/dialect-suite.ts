// One governed request per dialect on a recorded session prefix, and everything the issue
// asks of it: legal for the API (its own rules, native shapes), within budget unless the
// system prompt and the newest user turn alone exceed it, the newest user turn sent, the
// instructions kept, the input untouched, the report plain JSON. Shared by the vitest suite
// (sampled prefixes) and scripts/dialect-transcripts.ts (every prefix).
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { anthropicToModel } from '../dialects/anthropic/anthropic-to-model.js';
import type { AnthropicMessageLike } from '../dialects/anthropic/anthropic-types.js';
import { governAnthropic } from '../dialects/anthropic/govern-anthropic.js';
import type { GovernReport } from '../report/govern-report.js';
import { promptTokens } from '../sizing/estimate.js';
import { estimatorFor } from '../sizing/model-defaults.js';
import { governResponses } from '../dialects/responses/govern-responses.js';
import { responsesToModel } from '../dialects/responses/responses-to-model.js';
import type { ResponsesItemLike } from '../dialects/responses/responses-types.js';
import { anthropicRequestViolations } from './anthropic-request-rules.js';
import { toAnthropicHistory, toResponsesInput } from './dialect-histories.js';
import { responsesRequestViolations } from './responses-request-rules.js';
import { budgetOptions } from './node/transcripts.js';

/** The budgets the dialect suites govern at: 8k, 32k, 128k tokens and none. */
export const DIALECT_BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];

/** Outcome of one governed request: what is wrong with it, and whether it could not fit. */
export interface DialectCheck {
  problems: string[];
  unfittable: boolean;
}

type AnyBlock = { type: string; [key: string]: unknown };

const overBudget = (model: readonly Message[], budget: number): boolean => promptTokens(model, { tools: null, estimator: estimatorFor({}) }) > budget;

/** The newest turn was shortened to fit (onOverflow 'shrink'): it is sent, shortened. */
function shrunk(report: GovernReport): boolean {
  return report.steps.some((s) => s.step === 'shrinkToFit' && s.changed);
}

/** Within budget, or `report.fits === false` says why not; `fits` is always there with a budget. */
function budgetProblems(report: GovernReport, tokens: number, sent: readonly Message[], out: string[]): void {
  if (report.fits === undefined) out.push('report.fits is missing although there is a budget');
  if (report.fits === false) {
    if (report.overflow === undefined) out.push('report.fits is false without report.overflow');
    return;
  }
  if (!(report.tokensAfter! <= tokens)) out.push(`report.tokensAfter ${report.tokensAfter} over the budget ${tokens}`);
  if (overBudget(sent, tokens)) out.push(`the request is over the budget ${tokens} and report.fits is not false`);
}

function reportProblems(report: unknown, out: string[]): void {
  if (JSON.stringify(JSON.parse(JSON.stringify(report))) !== JSON.stringify(report)) out.push('report is not plain JSON');
}

/** A user turn with words (not only tool results). */
function hasWords(m: AnthropicMessageLike): boolean {
  return m.role === 'user' && (typeof m.content === 'string' || (m.content as readonly AnyBlock[]).some((b) => b.type !== 'tool_result'));
}

/** A recorded session in the Anthropic dialect, with the lengths of its user-turn prefixes. */
export function anthropicSession(history: readonly Message[]): { system?: string; messages: readonly AnthropicMessageLike[]; prefixes: number[] } {
  const converted = deepFreeze(toAnthropicHistory(history));
  const prefixes: number[] = [];
  converted.messages.forEach((m, i) => {
    if (hasWords(m)) prefixes.push(i + 1);
  });
  return { ...converted, prefixes };
}

/** Governs `messages` (a prefix ending at a user turn) with `governAnthropic` and checks it. */
export function checkAnthropicRequest(system: string | undefined, messages: readonly AnthropicMessageLike[], tokens: number | null): DialectCheck {
  const problems: string[] = [];
  const input = system === undefined ? { messages } : { system, messages };
  const snapshot = JSON.stringify(input);
  const result = governAnthropic(input, budgetOptions(tokens));
  if (JSON.stringify(input) !== snapshot) problems.push('the input changed');
  problems.push(...anthropicRequestViolations(result.messages));
  if (result.system !== system) problems.push('the system prompt changed');
  // The newest user turn: its words (string or blocks) are in the last user turn with words sent.
  const newest = messages.findLast(hasWords);
  const last = result.messages.findLast(hasWords);
  if (newest !== undefined) {
    const sent = last === undefined ? [] : typeof last.content === 'string' ? [last.content] : (last.content as readonly AnyBlock[]).map((b) => (b.type === 'text' ? String(b.text) : b));
    const wanted = typeof newest.content === 'string' ? [newest.content] : (newest.content as readonly AnyBlock[]).filter((b) => b.type !== 'tool_result' && !(b.type === 'text' && String(b.text).trim() === ''));
    for (const w of wanted) {
      const found = typeof w === 'string' ? w.trim() === '' || sent.some((s) => typeof s === 'string' && s.includes(w.trim())) : sent.includes(w) || sent.includes(String((w as AnyBlock).text));
      if (!found && !shrunk(result.report)) problems.push('the newest user turn is not sent');
    }
  }
  let unfittable = false;
  if (tokens !== null) {
    const model = anthropicToModel(system, messages);
    const lastUser = model.findLast((m) => m.role === 'user');
    unfittable = overBudget([...model.filter((m) => m.role === 'system'), ...(lastUser ? [lastUser] : [])], tokens);
    budgetProblems(result.report, tokens, anthropicToModel(result.system, result.messages), problems);
  }
  reportProblems(result.report, problems);
  return { problems, unfittable };
}

/** A recorded session in the Responses dialect, with the lengths of its user-turn prefixes. */
export function responsesSession(history: readonly Message[]): { input: readonly ResponsesItemLike[]; prefixes: number[] } {
  const input = deepFreeze(toResponsesInput(history));
  const prefixes: number[] = [];
  input.forEach((it, i) => {
    if ((it as { role?: unknown }).role === 'user') prefixes.push(i + 1);
  });
  return { input, prefixes };
}

/** Governs `input` (a prefix ending at a user message) with `governResponses` and checks it. */
export function checkResponsesRequest(input: readonly ResponsesItemLike[], tokens: number | null): DialectCheck {
  const problems: string[] = [];
  const snapshot = JSON.stringify(input);
  const result = governResponses(input, budgetOptions(tokens));
  if (JSON.stringify(input) !== snapshot) problems.push('the input changed');
  problems.push(...responsesRequestViolations(result.input));
  const instructions = input.filter((it) => ['system', 'developer'].includes(String((it as { role?: unknown }).role)));
  for (const it of instructions) if (!result.input.includes(it)) problems.push('an instruction was dropped or changed');
  const newest = input.findLast((it) => (it as { role?: unknown }).role === 'user');
  if (newest !== undefined) {
    const text = (it: unknown): string => {
      const c = (it as { content?: unknown }).content;
      return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: unknown }) => String(p.text ?? '')).join('\n') : '';
    };
    const lastUser = result.input.findLast((it) => (it as { role?: unknown }).role === 'user');
    if (lastUser === undefined || (lastUser !== newest && !text(lastUser).includes(text(newest).trim()) && !shrunk(result.report))) problems.push('the newest user turn is not sent');
  }
  let unfittable = false;
  if (tokens !== null) {
    const model = responsesToModel(input);
    const lastUser = model.findLast((m) => m.role === 'user');
    unfittable = overBudget([...model.filter((m) => m.role === 'system'), ...(lastUser ? [lastUser] : [])], tokens);
    budgetProblems(result.report, tokens, responsesToModel(result.input), problems);
  }
  reportProblems(result.report, problems);
  return { problems, unfittable };
}
