// Report lists built when first read. A memo that keeps a step's entries across calls (every
// tool-call id Mistral renames: ~6,000 entries on a 10,000-message history, twice) would
// otherwise copy all of them into every call's report, though a runner rarely reads them.
//
// A memo's result carries its lists as builders (DeferredEntries: `removed` and `added` read
// like lists, built on first read); the report line made from it is a plain object whose two
// lists are own accessors until first read, then plain data properties (where the object
// allows). The accessors are functions shared by every line, so lines keep one
// hidden class: accessors made per line (an object literal's own get/set, or defineProperty
// with new closures) left each line a slow dictionary-mode object, ~1.5–2 µs more per
// rewriting step and call on Node 20. The line's lists are own enumerable properties, so JSON
// and structural equality see plain lists.
import type { Message } from '@nanobot/schema';
import type { GovernStepName, GovernStepReport, ReportedMessage, ReportedToolResult } from './govern-report.js';

/** Builds the (frozen) list of a deferred property; called at most once per definition, must not throw. */
export type ListBuilder<T> = () => readonly T[];

/** The frozen empty list (shared: reports are plain data). */
const NONE: readonly ReportedMessage[] = Object.freeze([]);

/** The builder of the empty list. */
export const NO_ENTRIES: ListBuilder<ReportedMessage> = () => NONE;

/**
 * A memo's step result whose report entry lists are built when first read (each once: the
 * report line made from it reads the same lists). Contract: the builders must not throw.
 */
export class DeferredEntries {
  /** The step's output. */
  messages: Message[];
  #removed: ListBuilder<ReportedMessage> | readonly ReportedMessage[];
  #added: ListBuilder<ReportedMessage> | readonly ReportedMessage[];

  constructor(messages: Message[], removed: ListBuilder<ReportedMessage>, added: ListBuilder<ReportedMessage>) {
    this.messages = messages;
    this.#removed = removed;
    this.#added = added;
  }

  /** Messages the step removed (built on first read, frozen). */
  get removed(): ReportedMessage[] {
    if (typeof this.#removed === 'function') this.#removed = this.#removed();
    return this.#removed as ReportedMessage[];
  }

  /** Messages the step added (built on first read, frozen). */
  get added(): ReportedMessage[] {
    if (typeof this.#added === 'function') this.#added = this.#added();
    return this.#added as ReportedMessage[];
  }
}

/** Makes `value` the plain data property `key` of `target` (where the object allows) and returns it. */
function settle<T>(target: object, key: string, value: T): T {
  Reflect.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  return value;
}

/** Where a deferred line keeps the result its lists come from (a non-enumerable own key: JSON, keys and clones do not see it). */
const FROM: unique symbol = Symbol('deferred entries');

/** A report line whose lists are still accessors reading `[FROM]`. */
type DeferredLine = GovernStepReport & { [FROM]: DeferredEntries };

// The accessors every deferred line shares, made once here: the same functions on every line
// keep the lines in one hidden class (fast properties); an object literal with its own get/set made four
// closures per line and left it in dictionary mode: ~1.9 µs to make each line on Node 20,
// against ~0.35 µs so — per rewriting memo step and call (Gemini's four, 'openai''s one).
function deferredAccessor(key: 'removed' | 'added'): PropertyDescriptor {
  return {
    get(this: DeferredLine): readonly ReportedMessage[] {
      return settle(this, key, this[FROM][key]);
    },
    set(this: DeferredLine, value: readonly ReportedMessage[]) {
      settle(this, key, value);
    },
    enumerable: true,
    configurable: true,
  };
}
const REMOVED: PropertyDescriptor = Object.freeze(deferredAccessor('removed'));
const ADDED: PropertyDescriptor = Object.freeze(deferredAccessor('added'));

/**
 * A report line (keys in the order of every other line: JSON lists them so) whose `removed`
 * and `added` are `from`'s, read (and built) only when the line's are. Assigning either replaces
 * it with the assigned value, as for a data property.
 */
export function lineWithDeferredEntries(step: GovernStepName, pass: number, changed: boolean, messagesBefore: number, messagesAfter: number, from: DeferredEntries, toolResults: ReportedToolResult[]): GovernStepReport {
  const line = { step, pass, changed, messagesBefore, messagesAfter } as DeferredLine;
  Object.defineProperty(line, FROM, { value: from, writable: true });
  Object.defineProperty(line, 'removed', REMOVED);
  Object.defineProperty(line, 'added', ADDED);
  line.toolResults = toolResults;
  return line;
}
