import type { BaseMessage } from '@langchain/core/messages';
import { govern, type GovernOptions, type GovernReport } from '@nanobot/governor';
import { dialectMemoOf } from '@nanobot/governor/dialect';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { toGovernorView } from './internal/to-governor-messages.js';

/** Options of {@link governBaseMessages}: those of the governor's `govern`. */
export type GovernBaseMessagesOptions = GovernOptions;

/** Result of {@link governBaseMessages}. */
export interface GovernBaseMessagesResult {
  /** The model copy; every message the governor left alone is the input object itself. */
  messages: BaseMessage[];
  /** The governor's report, unchanged (indices are positions in the input and output lists). */
  report: GovernReport;
}

/**
 * Governs a LangChain history before a model call: the governor's `govern` pipeline on a
 * lossless OpenAI-shaped view of the messages, written back as LangChain messages. Calls
 * without a result get one (a `ToolMessage` with status `error`), orphan results go,
 * oversized results are offloaded or cut, and with a window the history is compacted and
 * snipped to fit. Messages left alone are the input objects; rewritten ones keep their ids,
 * names, kwargs, metadata and content blocks. Never mutates `messages`; returns the same array
 * when nothing changed. Synchronous. Throws `ValidationError` (from `@nanobot/schema`) for input
 * that is not a list of LangChain messages, or for bad options.
 */
export function governBaseMessages(messages: readonly BaseMessage[], options: GovernBaseMessagesOptions = {}): GovernBaseMessagesResult {
  const memo = dialectMemoOf();
  const view = toGovernorView(messages, 'governBaseMessages', memo);
  const { messages: governed, report } = govern(view, options);
  return { messages: fromGovernorView(messages, view, governed, memo), report };
}
