// Where a governor-side object came from: the dialect kit's origin tag, with a key of this
// package's own (spreads inside the governor carry it along, JSON and so token estimates never
// see it).
import type { BaseMessage } from '@langchain/core/messages';
import { createOriginTag, type OriginTag } from '@nanobot/governor/dialect';

/** Origin of a governor message: the LangChain message and the content made from it. */
export interface MessageOrigin {
  source: BaseMessage;
  content: unknown;
}

/** Origin of a content part or tool call. */
export interface PartOrigin {
  /** The LangChain content block or tool call. */
  part: Record<string, unknown>;
  /** The text (content part) or arguments (tool call) made from it, to see a rewrite. */
  made: unknown;
}

const LANGCHAIN_ORIGIN: OriginTag<MessageOrigin | PartOrigin> = createOriginTag<MessageOrigin | PartOrigin>('langchain');

/** Stores `origin` on `value` and returns `value`. */
export function withOrigin<T extends object>(value: T, origin: MessageOrigin | PartOrigin): T {
  return LANGCHAIN_ORIGIN.tag(value, origin);
}

/** Reads the origin of a governor-side object, if it has one. */
export function originOf<T extends MessageOrigin | PartOrigin>(value: unknown): T | undefined {
  return LANGCHAIN_ORIGIN.of(value) as T | undefined;
}
