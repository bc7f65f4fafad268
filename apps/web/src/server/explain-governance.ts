import { BACKFILL_CONTENT } from '@nanobot/governor';
import type { GovernReport, GovernStepReport, ReportedMessage, ReportedToolResult } from '@nanobot/governor';
import type { MarkAction, RemovalReason } from '../shared/protocol.js';

// Every change the governor reports, in words a person can read next to the message it touched.
// The texts come from the report's own fields (step, reason, sizes, ids, locations); a step or
// reason this file does not know yet still gets a sentence naming it, never an empty one.

const n = (v: number): string => v.toLocaleString('en-US');
const cap = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The API the copy was made legal for, as a reader names it. */
function targetName(report: GovernReport): string {
  switch (report.target) {
    case 'openai':
      return 'the OpenAI API';
    case 'anthropic':
      return 'the Anthropic API';
    default:
      return 'the API';
  }
}

/** A governor step's name in words (`snipHistory` → `snip history`). */
export function stepWords(step: string): string {
  return step.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** Which removal reason a step's removed message stands for. */
export function removalReasonOf(step: GovernStepReport, ref: ReportedMessage | undefined): RemovalReason {
  switch (step.step) {
    case 'snipHistory':
      return 'snipped';
    case 'dropOrphanToolResults':
      return 'orphan';
    case 'enforceRoleAlternation':
      return ref?.reason === 'merged-same-role' ? 'merged' : 'dropped';
    case 'legalizeForTarget':
    case 'shrinkToFit':
      return 'dropped';
    default:
      return 'stripped';
  }
}

/** Why a message of the transcript was not sent (it went in `step`). Never empty. */
export function removalWhy(step: GovernStepReport, ref: ReportedMessage | undefined, report: GovernReport): string {
  const api = targetName(report);
  switch (step.step) {
    case 'snipHistory':
      return `Left out to fit the ${n(report.budget)}-token budget: the governor cuts the oldest history first, and what it keeps starts at a user message.`;
    case 'stripPlaceholderAssistantMessages':
      return 'A placeholder reply ("[Previous assistant message omitted.]") tells the model nothing, so it is not sent.';
    case 'stripMalformedToolCalls':
      return `An assistant message whose tool calls have no usable name or id: ${api} would refuse them, and nothing else was in it.`;
    case 'dropOrphanToolResults':
      return `A tool result whose call is not in the history (cut earlier or lost): ${api} refuses a result without its call.`;
    case 'enforceRoleAlternation':
      if (ref?.reason === 'merged-same-role') return `Merged into the ${ref.role} message before it: ${api} needs user and assistant turns to alternate.`;
      if (ref?.reason === 'trailing-assistant') return `A trailing assistant message: the request has to end with the user's turn for ${api}.`;
      break;
    case 'legalizeForTarget':
      if (ref?.reason === 'empty-instruction') return `An empty instruction: ${api} refuses empty content.`;
      if (ref?.reason === 'empty-assistant') return `An empty assistant message: ${api} refuses empty content.`;
      if (ref?.reason === 'empty-user') return `An empty user message: ${api} refuses empty content.`;
      break;
    default:
      break;
  }
  const why = ref?.reason ? ` (${ref.reason.replace(/-/g, ' ')})` : '';
  return `Not sent: the governor's ${stepWords(step.step)} step left it out${why}.`;
}

/** What a step did to a sent message: the mark it gets, or null when it changed nothing visible. */
export function markActionOf(step: GovernStepReport, added: ReportedMessage, result: ReportedToolResult | undefined, replaced: boolean): MarkAction | null {
  if (result) return result.action;
  switch (step.step) {
    case 'backfillMissingToolResults':
      return 'backfilled';
    case 'stripMalformedToolCalls':
      return 'stripped-calls';
    case 'repairToolCallIds':
      return 'renamed';
    case 'regroupToolResults':
      return 'moved';
    case 'compactInflightOverflow':
    case 'microcompactKeepRecent':
      return 'compacted';
    case 'enforceRoleAlternation':
      return added.reason === 'merged-same-role' ? 'merged' : 'rewritten';
    case 'shrinkToFit':
      return added.reason === 'offloaded' ? 'offloaded' : 'truncated';
    case 'legalizeForTarget':
      return 'rewritten';
    default:
      return replaced ? 'rewritten' : null;
  }
}

/** Why a sent message was changed (or added) by `step`. Never empty. */
export function markWhy(step: GovernStepReport, added: ReportedMessage, result: ReportedToolResult | undefined, report: GovernReport): string {
  const api = targetName(report);
  const size = (chars: number | undefined): string => (chars !== undefined ? ` (${n(chars)} characters)` : '');
  if (result) {
    switch (result.action) {
      case 'offloaded':
        return `The result${size(result.originalChars)} is too long to send whole: it was saved to a file, and the model gets its beginning and the file's path to read the rest.`;
      case 'truncated':
        return `The result${size(result.originalChars)} is too long to send whole: it was cut to the per-result limit.`;
      case 'offload-failed':
        return `The result${size(result.originalChars)} is too long to send whole, and saving it to a file failed${result.error ? ` (${result.error})` : ''}: it was cut instead.`;
      case 'empty-marker':
        return `The tool returned nothing; it is sent as "(${result.name} completed with no output)", since some APIs refuse an empty result.`;
      case 'compacted':
        return step.step === 'microcompactKeepRecent'
          ? `An older result of ${result.name}, replaced by a short note: only the most recent results of such tools are kept in full.`
          : `The current turn's tool results no longer fit the budget: this one${size(result.originalChars)} was replaced by a short note so the turn can go on.`;
      case 'recompacted':
        return 'Compacted in an earlier request of this turn, and replaced by the same note again, so the start of the prompt stays the same (and cached).';
      case 'renamed':
        return `The tool-call id ${result.from ?? '(unknown)'} was used more than once in the history; renamed to ${result.toolCallId} so each result answers one call.`;
      case 'moved':
        return `This result was not right after its call; moved there, as ${api} requires.`;
    }
  }
  switch (step.step) {
    case 'backfillMissingToolResults':
      return `${added.name ?? 'The tool'} (call ${added.toolCallId ?? '?'}) has no result in the history: the turn was interrupted or the result lost. ${cap(api)} refuses a call without its result, so the governor sent a stand-in: "${BACKFILL_CONTENT}".`;
    case 'stripMalformedToolCalls':
      return `Tool calls without a usable name or id were removed from this message (${api} would refuse them); the rest was sent.`;
    case 'enforceRoleAlternation':
      if (added.reason === 'merged-same-role') return `Consecutive ${added.role} messages merged into one: ${api} needs user and assistant turns to alternate.`;
      if (added.reason === 'conversation-continued') return `Added so the conversation alternates as ${api} requires: the history would otherwise not start or go on with a user turn.`;
      if (added.reason === 'trailing-assistant') return `The last assistant message, moved into the user's turn: the request has to end with the user's turn for ${api}.`;
      break;
    case 'shrinkToFit':
      return added.reason === 'offloaded'
        ? `Still over the budget after the older history was cut: this message${size(added.originalChars)} was shortened, its full text saved${added.location ? ` to ${added.location}` : ''}.`
        : `Still over the budget after the older history was cut: this message${size(added.originalChars)} was shortened to fit.`;
    case 'legalizeForTarget':
      switch (added.reason) {
        case 'developer-as-system':
          return `A developer message, sent as a system message: ${api} has no developer role.`;
        case 'instruction-as-user-note':
          return `A system instruction inside the history, sent as a marked user note: ${api} takes instructions only at the start.`;
        case 'empty-tool-result':
          return `An empty tool result, sent with a marker: ${api} refuses empty content.`;
        case 'blank-text-removed':
          return `Blank text parts removed: ${api} refuses them.`;
        case 'empty-content-list':
          return `An empty content list, sent with a marker: ${api} refuses empty content.`;
        case 'tool-call-id-sanitized':
          return `Tool-call ids rewritten to the characters ${api} accepts.`;
        default:
          break;
      }
      break;
    default:
      break;
  }
  const why = added.reason ? ` (${added.reason.replace(/-/g, ' ')})` : '';
  return `Changed by the governor's ${stepWords(step.step)} step${why}.`;
}

/** What a summary chip counts, in a few words. */
export const ACTION_TEXT: Record<MarkAction | RemovalReason, string> = {
  snipped: 'older messages snipped to fit the budget',
  stripped: 'placeholder or malformed messages stripped',
  orphan: 'orphan tool results dropped',
  dropped: 'messages the API would refuse dropped',
  merged: 'same-role messages merged',
  backfilled: 'missing tool results backfilled',
  offloaded: 'long tool results saved to a file',
  truncated: 'long tool results cut',
  'empty-marker': 'empty tool results marked',
  'offload-failed': 'long tool results cut (saving failed)',
  compacted: 'tool results compacted to fit',
  recompacted: 'earlier compactions repeated',
  renamed: 'reused tool-call ids renamed',
  moved: 'tool results moved next to their call',
  'stripped-calls': 'malformed tool calls stripped',
  rewritten: 'messages rewritten for the API',
};
