// How tool-call ids a target rejects are renamed, as a left fold over the history: each id gets
// its new name when it first appears (on a call or a result), from what came before it only.
// So a grown history keeps every id it already had (the same history gives the same ids on
// every request, and the prompt cache holds), and a memo can resume the fold where the last
// request left it instead of renaming the whole list again. State lives in the map object the
// caller owns (one per fold); nothing is kept between folds here.
import { sha1Hex, type Message, type ToolCall } from '@nanobot/schema';
import type { TargetChangeReason } from '../../report/govern-report.js';
import type { DerivationCache } from '../derivation-cache.js';

/**
 * The first 9 hex digits of `text`'s SHA-1: the reference's Mistral id
 * (`hashlib.sha1(tool_call_id.encode()).hexdigest()[:9]`), so a history governed here and one
 * sent by the reference name the same call alike. Its digits and letters a–f also split into
 * short pieces the tokenizer has counted before, where a random mix of 62 characters is a new
 * piece to merge: counting a copy with a new id cost ~4× more (a grown Mistral history's
 * recorder line, 37 → 14 µs a call). Pure.
 */
export function shortToolCallId(text: string): string {
  return sha1Hex(text, 9);
}

/** The call ids of one assistant message (or the id of one tool result), strings only. */
function idsOf(m: Message): string[] {
  if (m.role === 'tool') return typeof m.tool_call_id === 'string' ? [m.tool_call_id] : [];
  if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return [];
  const ids: string[] = [];
  for (const call of m.tool_calls) {
    const id = (call as { id?: unknown } | null)?.id;
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}

/** Whether `m` carries a call id (or, a tool result, an id) that `pattern` rejects. With a cache, checked once per message. */
export function hasRejectedId(m: Message, pattern: RegExp, derive: DerivationCache): boolean {
  if (m.role !== 'assistant' && m.role !== 'tool') return false;
  return derive.derive(m, pattern, () => idsOf(m).some((id) => !pattern.test(id)));
}

/**
 * The id renaming of one fold over a history (see the file comment): an id the target accepts
 * keeps its name unless an id of an earlier turn was already given that name (then it is
 * renamed too, so names stay unique; within one turn accepted ids are named first); a rejected id gets `'sanitize'` (each other character becomes `_`) or
 * `'short-id'` (the first 9 hex digits of its SHA-1, the reference's Mistral id), the next candidate on a clash
 * (`_2`, `_3` … or the short id of `id#2`, `id#3` …). Calls and their results alike.
 */
export class ToolCallIdMap {
  readonly #pattern: RegExp;
  readonly #how: 'sanitize' | 'short-id';
  /** Each id seen so far and its name in the output. */
  readonly #names = new Map<string, string>();
  /** Names given so far. */
  readonly #taken = new Set<string>();
  /** Ids in order of first appearance, with the input index where each appeared (for rewinding). */
  readonly #order: string[] = [];
  readonly #at: number[] = [];
  /** The input index the map started at (ids before it were seeded: all accepted). */
  readonly startedAt: number;

  /**
   * A map for a fold that met its first rejected id at `start`: the ids of `messages[0..start)`
   * (all accepted, so they keep their names) are registered first.
   */
  constructor(pattern: RegExp, how: 'sanitize' | 'short-id', messages: readonly Message[], start: number) {
    this.#pattern = pattern;
    this.#how = how;
    this.startedAt = start;
    for (let i = 0; i < start; i++) for (const id of idsOf(messages[i])) this.#name(id, i);
  }

  /** The report reason of a rename by this map. */
  get reason(): TargetChangeReason {
    return this.#how === 'short-id' ? 'tool-call-id-mapped' : 'tool-call-id-sanitized';
  }

  /** Forgets the ids that first appeared at input index `k` or later (the fold resumes at `k`). */
  rewind(k: number): void {
    while (this.#at.length > 0 && this.#at[this.#at.length - 1] >= k) {
      this.#at.pop();
      const id = this.#order.pop()!;
      this.#taken.delete(this.#names.get(id)!);
      this.#names.delete(id);
    }
  }

  #name(id: string, at: number): string {
    const known = this.#names.get(id);
    if (known !== undefined) return known;
    const accepted = this.#pattern.test(id);
    const short = this.#how === 'short-id';
    const base = accepted || short ? id : id.replace(/[^a-zA-Z0-9_-]/g, '_');
    let next = accepted ? id : short ? shortToolCallId(id) : base;
    for (let n = 2; this.#taken.has(next); n++) next = short ? shortToolCallId(`${id}#${n}`) : `${base}_${n}`;
    this.#names.set(id, next);
    this.#taken.add(next);
    this.#order.push(id);
    this.#at.push(at);
    return next;
  }

  /**
   * `m` (input index `at`) with its ids renamed, registering ids it is the first to carry; `m`
   * itself when no id changes. With a cache, a message renamed the same way is the same object
   * on every request (what later steps derived from it is found again).
   */
  apply(m: Message, at: number, derive: DerivationCache): Message {
    if (m.role === 'tool') {
      const old = m.tool_call_id;
      if (typeof old !== 'string') return m;
      const id = this.#name(old, at);
      if (id === old) return m;
      const kept = derive.derive(m, RENAMED[this.#how], (): Message => ({ ...m, tool_call_id: id }));
      return kept.tool_call_id === id ? kept : { ...m, tool_call_id: id };
    }
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) return m;
    const calls = m.tool_calls as readonly unknown[];
    // Within one turn, ids the target accepts are named first, so they keep their names.
    for (const c of calls) {
      const id = (c as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && this.#pattern.test(id)) this.#name(id, at);
    }
    let names: (string | undefined)[] | null = null;
    for (let i = 0; i < calls.length; i++) {
      const id = (calls[i] as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') continue;
      const name = this.#name(id, at);
      if (name === id) continue;
      names ??= new Array<string | undefined>(calls.length);
      names[i] = name;
    }
    if (names === null) return m;
    const renamed = names;
    const make = (): Message => ({ ...m, tool_calls: calls.map((c, i) => (renamed[i] === undefined ? c : { ...(c as object), id: renamed[i] })) as ToolCall[] });
    const kept = derive.derive(m, RENAMED[this.#how], make);
    return sameIds(kept, calls, renamed) ? kept : make();
  }
}

/**
 * The cache key of a message's renamed copy, one per way of renaming (a Governor serving two
 * targets keeps each one's copy). A message is named alike wherever it is governed for a target
 * (its ids' names depend only on the ids before it, the same in every request of its history),
 * so the copy is kept once and checked against the names it needs, where a key naming them was a
 * new string per message and request; a history that names it otherwise gets a copy of its own.
 */
const RENAMED: Readonly<Record<'sanitize' | 'short-id', string>> = Object.freeze({ sanitize: 'renamed:sanitize', 'short-id': 'renamed:short-id' });

/** Whether the renamed copy `m` of a turn with `calls` carries `names` (undefined: the call keeps its id). */
function sameIds(m: Message, calls: readonly unknown[], names: readonly (string | undefined)[]): boolean {
  const kept = m.tool_calls as readonly unknown[];
  for (let i = 0; i < names.length; i++) {
    const want = names[i] ?? (calls[i] as { id?: unknown } | null)?.id;
    if ((kept[i] as { id?: unknown } | null)?.id !== want) return false;
  }
  return true;
}
