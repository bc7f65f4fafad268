import { DialectMemo } from '@nanobot/governor/dialect';
import type { Message } from '@nanobot/schema';
// `resolution-mode`: see governor-middleware.ts (ai 7 is ESM-only).
import type { ModelMessage } from 'ai' with { 'resolution-mode': 'import' };
import { toGovernorView } from './internal/to-governor-messages.js';

/**
 * The governor's view of an AI SDK history: the OpenAI chat-shaped messages `governModelMessages`
 * governs (one `tool` message per tool result). The governor's report counts message indices in
 * this view, and `checkLegality` from `@nanobot/governor` reads it, so a UI or a test can relate
 * the report to the history. Pure: converts with a fresh memo, never mutates `messages`. Throws
 * `ValidationError` (from `@nanobot/schema`) for input that is not a list of AI SDK messages.
 */
export function modelMessagesToGovernor(messages: readonly ModelMessage[]): Message[] {
  return toGovernorView(messages, 'modelMessagesToGovernor', new DialectMemo()).messages.slice();
}
