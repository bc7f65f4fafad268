// Decides whether our default output may differ from a reference case, from the reference
// output alone: only where that output is illegal for a provider, over budget, or lost the user.
import type { Message } from '@nanobot/schema';
import { checkLegality } from '../check-legality.js';
import { govern } from '../govern.js';
import { inputBudget } from '../sizing/input-budget.js';
import { promptTokens } from '../sizing/estimate.js';
import type { ConformanceCase } from '@nanobot-internal/test-support';
import { optionsFromConfig } from './governance-config.js';

export const STRUCTURAL = new Set(['unanswered-tool-call', 'orphan-tool-result', 'duplicate-tool-result', 'duplicate-tool-call-id', 'tool-call-id-missing']);

/** Why our default output may differ from the reference, derived from the reference output. */
export const DEVIATION_REASONS = {
  overBudget: 'reference output overflows the budget (snip_history undercounts the joined prompt, or keeps a whole tool loop without a user message); we start at a later user turn, or snip legally inside the loop',
  illegal: 'reference output is illegal for OpenAI/Anthropic (reused or missing call ids, results separated from their call); we repair ids and regroup results',
  noUser: 'reference output keeps no user message although the history has one (a displaced result made snipping cut the user turn); regrouping keeps it',
  illegalForTarget: 'reference output breaks a rule OpenAI or Anthropic state for a request (empty or whitespace-only content, an assistant turn last or first, two user turns in a row, a mid-history system message); the default target \'any\' makes the copy legal for both',
  plainNotes: 'the reference output holds a compacted or offloaded result worded as an error, or a read_file result past the size limit; the default mode says what was shortened and how to get the rest (never as an error), and cuts a rereadable result with a continuation hint instead of sending it whole',
  repairedInput: 'the history holds reused call ids or results separated from their call; after our repair snipping picks a different legal window within the budget',
} as const;

/** Which documented deviation explains a difference from `c.expected`, or null (none may). */
export function deviationReason(c: ConformanceCase): keyof typeof DEVIATION_REASONS | null {
  const o = optionsFromConfig(c.config);
  const budget = inputBudget(o);
  if (!Array.isArray(c.expected)) return null;
  if (checkLegality(c.expected).some((v) => STRUCTURAL.has(v.rule))) return 'illegal';
  if (budget > 0 && promptTokens(c.expected, { tools: o.tools }) > budget) return 'overBudget';
  const hasUser = (list: Message[]) => list.some((m) => m.role === 'user');
  if (hasUser(c.input.messages) && !hasUser(c.expected)) return 'noUser';
  if (govern(c.input.messages, { ...o, compactedToolCallIds: new Set(c.input.compacted_tool_call_ids ?? []) }).report.steps.some(
    (s) => (s.step === 'repairToolCallIds' || s.step === 'regroupToolResults') && s.changed,
  )) {
    return 'repairedInput';
  }
  const max = o.maxToolResultChars ?? 16000;
  const long = (m: Message) => m.role === 'tool' && typeof m.content === 'string' && max > 0 && m.content.length > max;
  if ((c.expected as Message[]).some((m) => m.role === 'tool' && typeof m.content === 'string' && (/^Error: The previous .* result was compacted/.test(m.content) || m.content.startsWith('[tool output persisted]')))
    || (c.input.messages as Message[]).some(long)) {
    return 'plainNotes';
  }
  if (checkLegality(c.expected, { target: 'any' }).length > 0) return 'illegalForTarget';
  return null;
}
