// Where a governor-side object came from. Kept under a symbol key: spreads (`{ ...m }`) inside
// the governor carry it along, JSON (and so token estimates) never sees it.
import type { BaseMessage } from '@langchain/core/messages';

/** The symbol key of an origin record. */
export const ORIGIN: unique symbol = Symbol('nanobot.langchain.origin');

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

/** Stores `origin` on `value` (under {@link ORIGIN}) and returns `value`. */
export function withOrigin<T extends object>(value: T, origin: MessageOrigin | PartOrigin): T {
  (value as { [ORIGIN]?: MessageOrigin | PartOrigin })[ORIGIN] = origin;
  return value;
}

/** Reads the origin of a governor-side object, if it has one. */
export function originOf<T>(value: unknown): T | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as { [ORIGIN]?: T })[ORIGIN];
}
