import { ValidationError } from '@nanobot/schema';
import type { GovernOptions } from '../../govern.js';
import type { GovernReport } from '../../report/govern-report.js';
import type { CutPlan } from '../../steps/cut/cut-plan.js';
import { defaultMemos } from '../../incremental/default-memos.js';
import { governModelCopy } from '../govern-model-copy.js';
import { anthropicToModel, anthropicToolsToModel } from './anthropic-to-model.js';
import type { AnthropicMessageLike, AnthropicSystemLike, AnthropicToolLike } from './anthropic-types.js';
import { modelToAnthropic } from './model-to-anthropic.js';

/** What {@link governAnthropic} takes: the fields of a Messages API request it governs. */
export interface GovernAnthropicInput {
  /** The top-level system prompt; counted in the budget, returned unchanged. */
  system?: AnthropicSystemLike;
  /** The stored history (`MessageParam[]`); never mutated. */
  messages: readonly AnthropicMessageLike[];
  /** The request's tools (`ToolUnion[]`); their JSON counts against the budget. */
  tools?: readonly AnthropicToolLike[];
}

/** Options of {@link governAnthropic}: those of `govern`, with tools given in the input and the target fixed. */
export type GovernAnthropicOptions = Omit<GovernOptions, 'tools' | 'target'>;

/**
 * What {@link governAnthropic} returns: the input's `system` (the same value; present exactly
 * when the input had one), the governed turns typed as the caller's own, and the report.
 */
export type GovernAnthropicResult<I extends GovernAnthropicInput> = Pick<I, 'system' & keyof I> & {
  messages: Array<I['messages'][number]>;
  report: GovernReport;
  /** The history cut plan: pass it as `cutPlan` on the session's next call (null: no cut). */
  cutPlan: CutPlan | null;
};

/**
 * Governs a native Anthropic history: converts it losslessly to the governor's model, runs
 * `govern` (budget, repairs, offload, snipping) and the empty-content and role-alternation
 * rules, and converts back. The result is a legal Messages API request body part (user turn
 * first, strict alternation, no empty or whitespace-only text blocks, every `tool_use`
 * answered by `tool_result` blocks first in the next user turn), and every block the governor
 * did not change comes back as the same object: thinking blocks with their signatures,
 * images, documents, `cache_control`, server tool blocks. Report indices refer to the model
 * copy (one message per assistant turn, per tool result, per user turn's other blocks).
 * Never mutates its input; throws {@link ValidationError} for input that is not an Anthropic
 * history, and what `govern` throws for invalid options.
 */
export function governAnthropic<I extends GovernAnthropicInput>(input: I, options: GovernAnthropicOptions = {}): GovernAnthropicResult<I> {
  if (input === null || typeof input !== 'object') throw new ValidationError('governAnthropic: input must be an object { system?, messages, tools? }');
  const dialect = defaultMemos().dialects;
  const model = anthropicToModel(input.system, input.messages, dialect);
  const tools = anthropicToolsToModel(input.tools, dialect);
  const govOptions: GovernOptions = tools === undefined ? { ...options } : { ...options, tools };
  const { messages, report, cutPlan } = governModelCopy(model, govOptions, 'anthropic');
  const out = { messages: modelToAnthropic(messages, dialect) as Array<I['messages'][number]>, report, cutPlan };
  return ('system' in input ? { system: input.system, ...out } : out) as GovernAnthropicResult<I>;
}
