import { pythonStrip } from '@nanobot/schema';
import type { Message } from '@nanobot/schema';
import { PLACEHOLDER_TEXTS } from '../../constants.js';
import { hasToolCallsValue } from '../../internal/tool-calls.js';
import { defineStep } from '../step.js';

const PLACEHOLDER_MIN_LENGTH = Math.min(...[...PLACEHOLDER_TEXTS].map((t) => t.length));

function isPlaceholder(msg: Message): boolean {
  if (msg.role !== 'assistant' || hasToolCallsValue(msg)) return false;
  const text = typeof msg.content === 'string' ? msg.content : '';
  // Cheap reject first: this runs on every assistant turn of every request.
  if (text.length < PLACEHOLDER_MIN_LENGTH || !text.includes('[')) return PLACEHOLDER_TEXTS.has(text);
  return PLACEHOLDER_TEXTS.has(pythonStrip(text));
}

/**
 * Drops assistant turns that only stand for an omitted message (`[Previous assistant message
 * omitted.]`), unless they carry tool calls. Pure: returns the same array when nothing is
 * dropped; kept messages are the input objects.
 */
export function stripPlaceholderAssistantMessages(messages: readonly Message[]): Message[] {
  if (!messages.some(isPlaceholder)) return messages as Message[];
  return messages.filter((m) => !isPlaceholder(m));
}

/** The step: drops placeholder assistant turns. */
export const stripPlaceholderAssistantMessagesStep = defineStep({
  name: 'stripPlaceholderAssistantMessages',
  may: ['drop'],
  noopOnClean: true,
  keepsClean: true,
  runs: () => true,
  run: (list) => ({ messages: stripPlaceholderAssistantMessages(list) }),
});
