import { govern, type GovernOptions, type GovernReport } from '@nanobot/governor';
import { dialectMemoOf } from '@nanobot/governor/dialect';
// `resolution-mode`: see governor-middleware.ts (ai 7 is ESM-only).
import type { ModelMessage } from 'ai' with { 'resolution-mode': 'import' };
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { toGovernorView } from './internal/to-governor-messages.js';

/** Options of {@link governModelMessages}: those of the governor's `govern`. */
export type GovernModelMessagesOptions = GovernOptions;

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
 * provider options and approval parts pass through untouched. Never mutates `messages`; returns
 * the same array when nothing changed. Synchronous. Throws `ValidationError` (from
 * `@nanobot/schema`) for input that is not a list of AI SDK messages or for bad options.
 */
export function governModelMessages(messages: readonly ModelMessage[], options: GovernModelMessagesOptions = {}): GovernModelMessagesResult {
  const memo = dialectMemoOf();
  const view = toGovernorView(messages, 'governModelMessages', memo);
  const { messages: governed, report } = govern(view.messages, options);
  const out = fromGovernorView(messages as readonly unknown[] as readonly AiMessage[], view, governed, 'model-messages', memo);
  return { messages: out as unknown[] as ModelMessage[], report };
}
