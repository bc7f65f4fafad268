import { govern, type GovernOptions, type GovernReport } from '@nanobot/governor';
import { dialectMemoOf } from '@nanobot/governor/dialect';
// `resolution-mode`: see governor-middleware.ts (ai 7 is ESM-only).
import type { ModelMessage } from 'ai' with { 'resolution-mode': 'import' };
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { toGovernorView } from './internal/to-governor-messages.js';
import { governorTargetFor } from './governor-target-for.js';

/** Options of {@link governModelMessages}: those of the governor's `govern`, and the provider the copy goes to. */
export interface GovernModelMessagesOptions extends GovernOptions {
  /**
   * The AI SDK provider id of the model the copy is sent to (its `provider`, e.g.
   * `google.generative-ai`, `mistral.chat`): without `target`, the target is inferred from it
   * (see {@link governorTargetFor}).
   */
  provider?: string;
}

/** Result of {@link governModelMessages}. */
export interface GovernModelMessagesResult {
  /** The model copy; every message the governor left alone is the input object itself. */
  messages: ModelMessage[];
  /**
   * The governor's report, unchanged. Its message indices count positions in the governor's
   * OpenAI-shaped copy, where a tool message holds one result (so a tool message with three
   * results counts three).
   */
  report: GovernReport;
}

/**
 * Governs an AI SDK history before `generateText` / `streamText` (or from `prepareStep`): the
 * governor's `govern` pipeline on a lossless OpenAI-shaped view of the messages, written back as
 * `ModelMessage`s. Calls without a result get one (so the SDK's `MissingToolResultsError` cannot
 * happen), orphan results go, oversized results are offloaded or cut, and with a window the
 * history is compacted and snipped to fit. Tool calls and results, reasoning, files and images,
 * provider options and approval parts pass through untouched. With `provider` (and no `target`)
 * the copy is made legal for that provider's API (see {@link governorTargetFor}). Never mutates `messages`; returns
 * the same array when nothing changed. Synchronous. Throws `ValidationError` (from
 * `@nanobot/schema`) for input that is not a list of AI SDK messages or for bad options.
 */
export function governModelMessages(messages: readonly ModelMessage[], options: GovernModelMessagesOptions = {}): GovernModelMessagesResult {
  const memo = dialectMemoOf();
  const view = toGovernorView(messages, 'governModelMessages', memo);
  const { provider, ...governOptions } = options;
  if (governOptions.target === undefined) {
    const inferred = governorTargetFor(provider);
    if (inferred !== undefined) governOptions.target = inferred;
  }
  const { messages: governed, report } = govern(view.messages, governOptions);
  const out = fromGovernorView(messages as readonly unknown[] as readonly AiMessage[], view, governed, 'model-messages', memo);
  return { messages: out as unknown[] as ModelMessage[], report };
}
