// The shape shared by the AI SDK's `ModelMessage` and the provider-level
// `LanguageModelV3Prompt` messages, read without trusting the types: one converter serves both
// (the prompt a middleware sees is a stricter subset: user content always a list, images as
// file parts, no approval requests).

/** Any content part of either dialect. */
export interface AiPart {
  type: string;
  [key: string]: unknown;
}

/** One message of either dialect. */
export interface AiMessage {
  role: string;
  content: string | AiPart[];
  providerOptions?: unknown;
  [key: string]: unknown;
}

/** Which of the two dialects a list is in; decides how new messages are written. */
export type AiDialect = 'model-messages' | 'v3-prompt';

/**
 * Where a governor-side object came from. Kept under a symbol key: spreads (`{ ...m }`) inside
 * the governor carry it along, JSON (and so token estimates) never sees it.
 */
export const ORIGIN: unique symbol = Symbol('nanobot.ai-sdk.origin');

/** Origin of a governor message. */
export interface MessageOrigin {
  /** The AI SDK message it was made from. */
  source: AiMessage;
  /** For a tool result: the result part, and the content value made from it. */
  part?: AiPart;
  content?: unknown;
  /** For a tool result: approval responses stored next to it, written back around it. */
  before?: AiPart[];
  after?: AiPart[];
}

/** Origin of a content part or tool call. */
export interface PartOrigin {
  part: AiPart;
  /** Position in the source message's content, to restore the order. */
  at: number;
  /** The text (content part) or arguments (tool call) made from it, to see a rewrite. */
  made: unknown;
  /** The message the part belongs to. */
  source: AiMessage;
}

/** Reads the origin of a governor-side object, if it has one. */
export function originOf<T>(value: unknown): T | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as { [ORIGIN]?: T })[ORIGIN];
}
