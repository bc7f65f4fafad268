// The shape shared by the AI SDK's `ModelMessage` and the provider-level
// `LanguageModelV3Prompt` messages, read without trusting the types: one converter serves both
// (the prompt a middleware sees is a stricter subset: user content always a list, images as
// file parts, no approval requests).
import { createOriginTag, type OriginTag } from '@nanobot/governor/dialect';

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
 * Where a governor-side object came from: the dialect kit's origin tag, a key of this package's
 * own (spreads inside the governor carry it along, JSON and so token estimates never see it).
 */
const AI_SDK_ORIGIN: OriginTag<MessageOrigin | PartOrigin> = createOriginTag<MessageOrigin | PartOrigin>('ai-sdk');

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
  /**
   * The governor message the record was attached to (see {@link withMessageOrigin}): a copy the
   * governor made of it shares the record but is another object, so a message whose record
   * names another is known to be no message of any view without looking it up.
   */
  message?: object;
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

/** Tags a governor-side object with its origin; returns the object. */
export function withOrigin<T extends object>(value: T, origin: MessageOrigin | PartOrigin): T {
  return AI_SDK_ORIGIN.tag(value, origin);
}

/** Tags a governor message made from a source message with its origin, naming the message in it; returns the message. */
export function withMessageOrigin<T extends object>(value: T, origin: MessageOrigin): T {
  origin.message = value;
  return AI_SDK_ORIGIN.tag(value, origin);
}

/** Reads the origin of a governor-side object, if it has one. */
export function originOf<T extends MessageOrigin | PartOrigin>(value: unknown): T | undefined {
  return AI_SDK_ORIGIN.of(value) as T | undefined;
}
