import type { GovernOptions } from '../../govern.js';
import type { GovernReport } from '../../report/govern-report.js';
import type { CutPlan } from '../../steps/cut/cut-plan.js';
import { defaultMemos } from '../../incremental/default-memos.js';
import { governModelCopy } from '../govern-model-copy.js';
import { modelToResponses } from './model-to-responses.js';
import { responsesToModel, responsesToolsToModel } from './responses-to-model.js';
import type { ResponsesItemLike, ResponsesToolLike } from './responses-types.js';

/** Options of {@link governResponses}: those of `govern` (the target fixed), with Responses-shaped `tools`. */
export type GovernResponsesOptions = Omit<GovernOptions, 'tools' | 'target'> & {
  /** The request's tools (`Tool[]`); their JSON counts against the budget. */
  tools?: readonly ResponsesToolLike[];
};

/** What {@link governResponses} returns: the governed items, typed as the caller's own, and the report. */
export interface GovernResponsesResult<I extends ResponsesItemLike> {
  input: I[];
  report: GovernReport;
  /** The history cut plan: pass it as `cutPlan` on the session's next call (null: no cut). */
  cutPlan: CutPlan | null;
}

/**
 * Governs an OpenAI Responses input history: converts the items losslessly to the governor's
 * model, runs `govern` (budget, repairs, offload, snipping) and the empty-content and
 * role-alternation rules, and converts back. Every `function_call` is answered by a
 * `function_call_output` with the same `call_id` after it, no assistant message is empty,
 * `system`/`developer` instructions stay, each `reasoning` item stays right before the message
 * or call it precedes (or goes with it), and every item the governor did not change comes
 * back as the same object, unknown item types included. Report indices refer to the model
 * copy (one message per message item, per assistant turn with its calls, per output). Never
 * mutates its input; throws {@link ValidationError} for input that is not a list of items, and
 * what `govern` throws for invalid options.
 */
export function governResponses<I extends ResponsesItemLike>(input: readonly I[], options: GovernResponsesOptions = {}): GovernResponsesResult<I> {
  const dialect = defaultMemos().dialects;
  const model = responsesToModel(input, dialect);
  const { tools: rawTools, ...rest } = options;
  const tools = responsesToolsToModel(rawTools, dialect);
  const govOptions: GovernOptions = tools === undefined ? rest : { ...rest, tools };
  const { messages, report, cutPlan } = governModelCopy(model, govOptions, 'openai');
  // Nothing a model message could carry (only items of unknown type): they pass through.
  if (model.length === 0) return { input: input.slice(), report, cutPlan };
  const { items, blank } = modelToResponses(messages, model, dialect);
  if (blank.length > 0) {
    // Reported as govern reports its own target rewrites: the message removed and added back.
    let step = report.steps.find((s) => s.step === 'legalizeForTarget');
    if (step === undefined) {
      step = { step: 'legalizeForTarget', pass: 1, changed: true, messagesBefore: messages.length, messagesAfter: messages.length, removed: [], added: [], toolResults: [] };
      report.steps.push(step);
    }
    step.changed = true;
    // The report's lists are frozen (and may be shared with earlier reports): new ones.
    const entries = blank.map((index) => ({ index, role: 'assistant', reason: 'blank-text-removed' as const }));
    step.removed = Object.freeze([...step.removed, ...entries]);
    step.added = Object.freeze([...step.added, ...entries.map((e) => ({ ...e }))]);
  }
  return { input: items as I[], report, cutPlan };
}
