// The governor's output → AI SDK messages. A run of governor messages that is exactly the view
// of one source message gives back that source object (so everything the governor left alone
// is returned as it came, by identity); anything else is rebuilt from the governor message,
// taking every part it still carries from its origin (provider options, file data, reasoning
// signatures, tool inputs), and only what the governor rewrote from the governor message.
import { BACKFILL_CONTENT } from '@nanobot/governor';
import type { DialectMemo } from '@nanobot/governor/dialect';
import type { Message } from '@nanobot/schema';
import { originOf, type AiDialect, type AiMessage, type AiPart, type MessageOrigin, type PartOrigin } from './ai-message.js';
import type { GovernorView } from './to-governor-messages.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function backPart(value: unknown): AiPart {
  const origin = originOf<PartOrigin>(value);
  const part = (isRecord(value) ? value : { type: 'text', text: String(value) }) as AiPart;
  if (origin !== undefined) {
    if (origin.made === undefined || part.text === origin.made) return origin.part;
    return { ...origin.part, text: part.text };
  }
  if (part.type === 'text') return { type: 'text', text: typeof part.text === 'string' ? part.text : '' };
  return part;
}

function backCall(call: unknown): AiPart {
  const c = (isRecord(call) ? call : {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const origin = originOf<PartOrigin>(call);
  const id = String(c.id ?? '');
  const name = String(c.function?.name ?? '');
  const args = c.function?.arguments;
  if (origin !== undefined) {
    const same = args === origin.made;
    if (same && id === origin.part.toolCallId && name === origin.part.toolName) return origin.part;
    return { ...origin.part, toolCallId: id, toolName: name, input: same ? origin.part.input : parseArguments(args) };
  }
  return { type: 'tool-call', toolCallId: id, toolName: name, input: parseArguments(args) };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).filter((t) => t !== '').join('\n');
}

function output(content: unknown, previous: unknown): Record<string, unknown> {
  const wasError = isRecord(previous) && (previous.type === 'error-text' || previous.type === 'error-json');
  if (Array.isArray(content) && content.some((p) => originOf<PartOrigin>(p) !== undefined || (isRecord(p) && p.type !== 'text'))) {
    return { type: 'content', value: content.map(backPart) };
  }
  const text = textOf(content);
  return { type: wasError || text === BACKFILL_CONTENT ? 'error-text' : 'text', value: text };
}

function toolResult(g: Message): AiPart[] {
  const origin = originOf<MessageOrigin>(g);
  const id = String(g.tool_call_id ?? '');
  if (origin?.part === undefined) {
    return [{ type: 'tool-result', toolCallId: id, toolName: typeof g.name === 'string' && g.name ? g.name : 'unknown', output: output(g.content, null) }];
  }
  let part = origin.part;
  if (g.content !== origin.content) part = { ...part, output: output(g.content, part.output) };
  if (id !== part.toolCallId) part = { ...part, toolCallId: id };
  return [...(origin.before ?? []), part, ...(origin.after ?? [])];
}

function withOptions(out: AiMessage, origin: MessageOrigin | undefined, role: string): AiMessage {
  if (origin !== undefined && origin.source.role === role && origin.source.providerOptions !== undefined) {
    out.providerOptions = origin.source.providerOptions;
  }
  return out;
}

/** Parts of a rebuilt user or assistant turn, in their original order where they have one. */
function orderedParts(g: Message, origin: MessageOrigin | undefined): AiPart[] {
  const items: { part: AiPart; at: number }[] = [];
  const add = (value: unknown, part: AiPart) => {
    const o = originOf<PartOrigin>(value);
    items.push({ part, at: o !== undefined && origin !== undefined && o.source === origin.source ? o.at : Infinity });
  };
  if (typeof g.content === 'string') {
    if (g.content !== '' || !Array.isArray(g.tool_calls) || g.tool_calls.length === 0) items.push({ part: { type: 'text', text: g.content }, at: -1 });
  } else if (Array.isArray(g.content)) {
    for (const p of g.content) add(p, backPart(p));
  }
  if (Array.isArray(g.tool_calls)) for (const c of g.tool_calls) add(c, backCall(c));
  // A reasoning_content the governor gave a tool-calling turn that had none (DeepSeek's target:
  // thinking mode wants one back on every such turn) travels as an empty reasoning part.
  if (g.reasoning_content === '' && !items.some((it) => it.part.type === 'reasoning')) items.push({ part: { type: 'reasoning', text: '' }, at: -2 });
  // Stable: new parts keep the governor's order after the ones that have a place.
  return items.map((it, i) => ({ ...it, i })).sort((a, b) => a.at - b.at || a.i - b.i).map((it) => it.part);
}

function rebuild(g: Message, dialect: AiDialect): AiMessage {
  const origin = originOf<MessageOrigin>(g);
  const role = g.role === 'developer' ? 'system' : String(g.role);
  if (role === 'tool') return withOptions({ role: 'tool', content: toolResult(g) }, origin, role);
  if (role === 'system') return withOptions({ role: 'system', content: textOf(g.content) }, origin, role);
  const parts = orderedParts(g, origin);
  const plain = parts.every((p) => p.type === 'text' && Object.keys(p).length === 2);
  const content: string | AiPart[] = dialect === 'model-messages' && plain && parts.length === 1 && typeof g.content === 'string'
    ? (parts[0].text as string)
    : parts;
  return withOptions({ role, content }, origin, role);
}

function sameRun(own: readonly Message[], governed: readonly Message[], k: number): boolean {
  for (let j = 1; j < own.length; j++) if (governed[k + j] !== own[j]) return false;
  return true;
}

/** Where the source message of a rewritten governor message stands (see sourceLookups). */
interface SourceLookups {
  source: readonly AiMessage[];
  sourceIndex: Map<AiMessage, number>;
  /** With a reused view: the first source index whose view messages name each origin object. */
  originIndex: Map<AiMessage, number> | null;
}

/** A view message's index: its last position in the view's messages, or undefined. */
interface Positions {
  get(message: Message): number | undefined;
  /** How many lookups of grown views it chains (see positions). */
  depth: number;
}

/** Chained lookups (see positions) before a grown view's are indexed whole again. */
const MAX_POSITION_DEPTH = 4;

// What depends on the view alone (its messages, its parts) is kept per array: a rebuilt but
// equal prompt gets a new view object around the same arrays (see toGovernorView), and reading
// every view message's origin again on each call was most of a warm middleware call. A view
// grown from an earlier one (the next step's prompt: the same messages and a few more) indexes
// only its new messages and asks the earlier view's lookup for the rest (the new ones stand
// after them, so the last position of a message is its new one if it has one): indexing all
// 10,000 messages of each step's prompt again was most of a growing middleware call.
function positions(view: GovernorView, memo: DialectMemo): Positions {
  const cache = memo.weak<readonly Message[], Positions>('ai-sdk:positions');
  const messages = view.messages;
  let hit = cache.get(messages);
  if (hit !== undefined) return hit;
  const grownFrom = view.grownFrom;
  const earlier = grownFrom !== undefined ? cache.get(grownFrom) : undefined;
  if (earlier !== undefined && earlier.depth < MAX_POSITION_DEPTH) {
    const own = new Map<Message, number>();
    for (let i = grownFrom!.length; i < messages.length; i++) own.set(messages[i], i);
    hit = { get: (m) => own.get(m) ?? earlier.get(m), depth: earlier.depth + 1 };
  } else {
    const all = new Map<Message, number>();
    for (let i = 0; i < messages.length; i++) all.set(messages[i], i);
    hit = { get: (m) => all.get(m), depth: 0 };
  }
  cache.set(messages, hit);
  return hit;
}

function origins(parts: readonly (readonly Message[])[], memo: DialectMemo): Map<AiMessage, number> {
  const cache = memo.weak<readonly (readonly Message[])[], Map<AiMessage, number>>('ai-sdk:origins');
  let hit = cache.get(parts);
  if (hit === undefined) {
    hit = new Map();
    for (let i = 0; i < parts.length; i++) {
      for (const m of parts[i]) {
        const from = originOf<MessageOrigin>(m)?.source;
        if (from !== undefined && !hit.has(from)) hit.set(from, i);
      }
    }
    cache.set(parts, hit);
  }
  return hit;
}

// A view is reused while its history is (see toGovernorView), and so are its lookups.
function sourceLookups(source: readonly AiMessage[], view: GovernorView, memo: DialectMemo): SourceLookups {
  const lookups = memo.weak<GovernorView, SourceLookups>('ai-sdk:lookups');
  const hit = lookups.get(view);
  if (hit !== undefined && hit.source === source) return hit;
  const sourceIndex = new Map<AiMessage, number>();
  source.forEach((m, i) => sourceIndex.set(m, i));
  // A source object's own index first; objects an earlier, equal prompt held (origins of a
  // reused view) by the first view messages they name.
  const entry: SourceLookups = { source, sourceIndex, originIndex: view.reused === true ? origins(view.parts, memo) : null };
  lookups.set(view, entry);
  return entry;
}

// The governor hands back the same rewritten objects for the same history (its rewrites are
// cached per message), so their AI SDK form is made once too.
function rebuilt(g: Message, dialect: AiDialect, memo: DialectMemo): AiMessage {
  const cache = memo.weak<Message, AiMessage>(`ai-sdk:rebuilt:${dialect}`);
  let out = cache.get(g);
  if (out === undefined) {
    out = rebuild(g, dialect);
    cache.set(g, out);
  }
  return out;
}

/**
 * How {@link fromGovernorView} wrote a result back, to write it again over another source the
 * same view stands for (see {@link writeAgain}): `'source'` (the source itself), the slots of
 * the written prompt, or null when they depend on the source's own objects.
 */
export type WrittenBack = 'source' | readonly WriteOp[] | null;

/**
 * Writes `governed` (the governor's output for `view`) back in the dialect of `source`, with the
 * lookups and rebuilt messages kept in `memo`. Never mutates its inputs; returns `source` itself
 * when the governor returned the view unchanged. `how`, when given, is told how (see
 * {@link WrittenBack}).
 */
export function fromGovernorView(source: readonly AiMessage[], view: GovernorView, governed: readonly Message[], dialect: AiDialect, memo: DialectMemo, how?: { written?: WrittenBack }): AiMessage[] {
  if (governed === view.messages) {
    if (how !== undefined) how.written = 'source';
    return source as AiMessage[];
  }
  const plans = memo.weak<readonly Message[], WritePlan>(`ai-sdk:plan:${dialect}`);
  const known = plans.get(view.messages);
  if (known !== undefined && known.parts === view.parts && known.owner === view.owner && known.reused === (view.reused === true) && known.sourceLength === source.length && samePointers(known.governed, governed)) {
    if (how !== undefined) how.written = known.ops;
    return replay(known.ops, source);
  }
  // Only where every source message has a view message: the source index of a rewritten
  // message (found through its origin) then decides nothing, and the plan is the same for every
  // source this view stands for.
  const general = !hasEmptyParts(view, memo);
  const marks: Checkpoints = { k: [], ops: [], cursor: [] };
  const resume = general ? resumeFrom(view, governed, plans, marks) : undefined;
  const ops: WriteOp[] = resume !== undefined ? resume.ops : [];
  const out = writeBack(source, view, governed, dialect, memo, ops, marks, resume);
  if (general) {
    plans.set(view.messages, { parts: view.parts, owner: view.owner, reused: view.reused === true, sourceLength: source.length, governed: governed.slice(), ops, marks });
  }
  if (how !== undefined) how.written = general ? ops : null;
  return out;
}

/**
 * Where a grown view's write-back can take over the plan of the view it grew from (see
 * {@link Checkpoints}): the last checkpoint of that plan inside the stretch of `governed` that
 * is, slot for slot, the output the plan was made for; its ops up to there copied, its earlier
 * checkpoints copied into `marks`. Undefined where the plan cannot be taken over: no plan, an
 * earlier view with parts this one does not share, new messages that are not all new objects
 * (one standing in the earlier view too would be looked up at its new place), or no checkpoint.
 */
function resumeFrom(view: GovernorView, governed: readonly Message[], plans: WeakMapLike<readonly Message[], WritePlan>, marks: Checkpoints): Resume | undefined {
  const earlier = view.grownFrom;
  if (earlier === undefined || view.grownFresh !== true) return undefined;
  const plan = plans.get(earlier);
  // The plan was made for the earlier view's own parts (this view's start with those entries).
  if (plan === undefined || plan.marks.k.length === 0 || plan.parts !== view.grownFromParts) return undefined;
  const before = plan.governed;
  const n = Math.min(before.length, governed.length);
  let same = 0;
  while (same < n && Object.is(before[same], governed[same])) same++;
  // The last checkpoint at or before `same` (checkpoints are in increasing order).
  const { k, ops, cursor } = plan.marks;
  let lo = 0;
  let hi = k.length - 1;
  if (k[0] > same) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (k[mid] <= same) lo = mid;
    else hi = mid - 1;
  }
  for (let i = 0; i < lo; i++) {
    marks.k.push(k[i]);
    marks.ops.push(ops[i]);
    marks.cursor.push(cursor[i]);
  }
  return { k: k[lo], cursor: cursor[lo], ops: plan.ops.slice(0, ops[lo]) };
}

/**
 * A result written back again (see {@link WrittenBack}) over `source`, a list of as many
 * messages the same view stands for: its own objects where the result kept them.
 */
export function writeAgain(written: 'source' | readonly WriteOp[], source: readonly AiMessage[]): AiMessage[] {
  return written === 'source' ? source as AiMessage[] : replay(written, source);
}

/** One slot of a written-back prompt: the source message at an index, or a message made for it. */
export type WriteOp = number | AiMessage;

/**
 * How the governor's output for a view was written back (see fromGovernorView): the same output
 * for the same view — the usual next step, or a prompt the SDK rebuilt from the same data —
 * is written back the same way, without reading a message.
 */
interface WritePlan {
  parts: GovernorView['parts'];
  owner: GovernorView['owner'];
  reused: boolean;
  sourceLength: number;
  /** The governor's output it was made for (its slots, compared by identity). */
  governed: readonly Message[];
  ops: WriteOp[];
  marks: Checkpoints;
}

/**
 * Points of a write-back from which the rest can be written by itself (see resumeFrom): after
 * the `k[i]` first governor messages were written as `ops[i]` ops (the last one a source
 * message kept whole), with the view cursor at `cursor[i]`. What the loop did up to there
 * depends only on those messages and the view messages before the cursor, so a view grown from
 * this one (the same first messages, new objects after them) given an output that starts with
 * the same messages writes the same first ops. Kept every {@link CHECKPOINT_EVERY} messages.
 */
interface Checkpoints {
  k: number[];
  ops: number[];
  cursor: number[];
}

/** Where a write-back starts over (see resumeFrom): its first ops already written. */
interface Resume {
  k: number;
  cursor: number;
  ops: WriteOp[];
}

/** Governor messages between two checkpoints: at most this many are written again on a resume. */
const CHECKPOINT_EVERY = 32;

/** The part of a WeakMap resumeFrom reads. */
interface WeakMapLike<K, V> {
  get(key: K): V | undefined;
}

function samePointers(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  // Object.is compares the two pointers without reading the objects (=== on values seen to be
  // objects reads each one's header first: a cache miss per message in a long prompt).
  for (let i = a.length - 1; i >= 0; i--) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function replay(ops: readonly WriteOp[], source: readonly AiMessage[]): AiMessage[] {
  const out = new Array<AiMessage>(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    out[i] = typeof op === 'number' ? source[op] : op;
  }
  return out;
}

function hasEmptyParts(view: GovernorView, memo: DialectMemo): boolean {
  const cache = memo.weak<readonly (readonly Message[])[], boolean>('ai-sdk:empty-parts');
  const parts = view.parts;
  let hit = cache.get(parts);
  if (hit === undefined) {
    // A grown view starts with the earlier view's parts: only its new ones are read when the
    // earlier answer is known.
    const earlier = view.grownFromParts !== undefined ? cache.get(view.grownFromParts) : undefined;
    hit = earlier === true;
    for (let i = earlier === false ? view.grownFromParts!.length : 0; !hit && i < parts.length; i++) hit = parts[i].length === 0;
    cache.set(parts, hit);
  }
  return hit;
}

/**
 * How many view messages after the cursor are looked at before a message's position is looked
 * up (see writeBack): a message the same object stands at twice in a view (the same source
 * object twice in a list) may then be found at its nearer place rather than its last; both
 * stand for equal source messages.
 */
const NEAR = 8;

/** fromGovernorView's plain write-back; `ops` records each output slot (see {@link WriteOp}). */
function writeBack(source: readonly AiMessage[], view: GovernorView, governed: readonly Message[], dialect: AiDialect, memo: DialectMemo, ops: WriteOp[], marks: Checkpoints, resume: Resume | undefined): AiMessage[] {
  // The governor keeps order and shares structure: an output message is mostly the view message
  // after the previous one (a pointer comparison); only the others need the lookup.
  const vm = view.messages;
  let cursor = resume?.cursor ?? 0;
  let position: Positions | undefined;
  let lookup: SourceLookups | undefined;
  const viewIndex = (g: Message): number | undefined => {
    if (vm[cursor] === g) return cursor;
    // Every view message is named by its own origin record: a message whose record names
    // another object is the governor's copy of one (a rewrite), in no view.
    const named = originOf<MessageOrigin>(g)?.message;
    if (named !== undefined && named !== g) return undefined;
    // After a rewrite (messages merged into one) the next kept message stands a few places on.
    for (let j = cursor + 1, end = Math.min(vm.length, cursor + NEAR); j < end; j++) if (vm[j] === g) return j;
    position ??= positions(view, memo);
    return position.get(g);
  };
  // The source index of a rewritten message only decides which source messages without a view
  // (approval-only tool messages) follow it: with none in the view, it is never looked up.
  const followersExist = hasEmptyParts(view, memo);
  const sourceOf = (from: AiMessage): number => {
    if (!followersExist) return -1;
    lookup ??= sourceLookups(source, view, memo);
    return lookup.sourceIndex.get(from) ?? lookup.originIndex?.get(from) ?? -1;
  };
  // Resumed: the first ops are the earlier plan's (see resumeFrom); their messages from this source.
  const out: AiMessage[] = resume !== undefined ? replay(ops, source) : [];
  let lastBuilt: AiMessage | undefined;
  let lastSource: AiMessage | undefined;
  // Source messages with no view (approval-only tool messages) follow the message before them.
  const followed = new Set<number>();
  let open = -1;
  const followers = (si: number) => {
    if (si < 0 || followed.has(si)) return;
    followed.add(si);
    for (let j = si + 1; j < source.length && view.parts[j].length === 0; j++) {
      out.push(source[j]);
      ops.push(j);
    }
  };
  if (resume === undefined && governed.length > 0 && governed[0] === view.messages[0]) {
    for (let j = 0; j < source.length && view.parts[j].length === 0; j++) {
      out.push(source[j]);
      ops.push(j);
    }
  }
  let marked = resume?.k ?? 0;
  if (resume !== undefined) {
    marks.k.push(resume.k);
    marks.ops.push(ops.length);
    marks.cursor.push(cursor);
  }
  for (let k = resume?.k ?? 0; k < governed.length;) {
    const g = governed[k];
    const vi = viewIndex(g);
    if (vi !== undefined) cursor = vi + 1;
    const from = vi === undefined ? originOf<MessageOrigin>(g)?.source : undefined;
    const si = vi !== undefined ? view.owner[vi] : from !== undefined ? sourceOf(from) : -1;
    if (si !== open) followers(open);
    open = si;
    if (vi !== undefined) {
      const own = view.parts[si];
      if (own[0] === g && sameRun(own, governed, k)) {
        out.push(source[si]);
        ops.push(si);
        followers(si);
        open = -1;
        k += own.length;
        cursor = vi + own.length;
        // Only where nothing waits to follow (see Checkpoints): the plan is then kept.
        if (!followersExist && k - marked >= CHECKPOINT_EVERY) {
          marked = k;
          marks.k.push(k);
          marks.ops.push(ops.length);
          marks.cursor.push(cursor);
        }
        continue;
      }
    }
    const next = rebuilt(g, dialect, memo);
    const origin = from ?? originOf<MessageOrigin>(g)?.source;
    const last = out[out.length - 1];
    // Results of one tool turn (and results the governor added after them) stay one tool
    // message, as the source had them.
    if (next.role === 'tool' && last !== undefined && last === lastBuilt && last.role === 'tool' && Array.isArray(last.content)
      && (origin === undefined || origin === lastSource)) {
      out[out.length - 1] = lastBuilt = { ...last, content: [...last.content, ...(next.content as AiPart[])] };
      ops[ops.length - 1] = lastBuilt;
    } else {
      out.push(next);
      ops.push(next);
      lastBuilt = next;
      lastSource = origin;
    }
    k++;
  }
  followers(open);
  return out;
}
