// AI SDK messages → the governor's OpenAI-shaped messages. One AI SDK message becomes one
// governor message, except a tool message, which becomes one governor message per result (the
// OpenAI shape answers one call per message) and none when it only holds approval responses.
// Conversions are cached per message object, so a history governed again (a runner's next
// step) hands the governor the same objects and keeps its caches warm.
import type { ContentPart, Message, ToolCall } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
import type { DialectMemo } from '@nanobot/governor/dialect';
import { originOf, withMessageOrigin, withOrigin, type AiMessage, type AiPart, type MessageOrigin } from './ai-message.js';

/** The governor's view of a list: its messages and which source message each came from. */
export interface GovernorView {
  messages: Message[];
  /** For each view message, the index of its source message. */
  owner: number[];
  /** For each source message, its view messages (possibly none). */
  parts: Message[][];
  /**
   * Whether some view messages were made from earlier, equal source objects (see
   * {@link toGovernorView}'s `previous`): their origins then name those objects.
   */
  reused?: boolean;
  /**
   * The messages of the earlier view this one was made from by converting more messages after
   * them (a history grown at the end): this view's messages start with exactly those entries.
   * Lets the write-back extend that view's lookups instead of indexing every message again.
   */
  grownFrom?: readonly Message[];
  /**
   * With `grownFrom`: whether every message after those was converted for this view (new
   * objects, none of which stands in the earlier view), so a lookup of an earlier message finds
   * it where it found it before (see the write-back's resumeFrom).
   */
  grownFresh?: boolean;
  /** With `grownFrom`: the earlier view's `parts` (this view's start with exactly those entries). */
  grownFromParts?: readonly (readonly Message[])[];
  /**
   * Whether some of its parts hide calls awaiting approval (see hideAwaitingCalls): made for
   * this list's tail alone, never reused for a later list.
   */
  awaiting?: boolean;
}

/** A list and its view, kept to reuse the view of the same list grown (by identity). */
interface KnownView {
  source: readonly unknown[];
  view: GovernorView;
}

/**
 * An earlier list of a conversation and its view, kept to reuse the view of equal messages of a
 * rebuilt list. The list is kept as the values of its messages' fields (see {@link recordPrompt}),
 * not as its objects: the AI SDK builds each step's prompt anew, and keeping the last one alive
 * until the next step would carry all its message and part objects into the old generation.
 */
export interface PreviousView {
  /** The fields every message is recognised by, in order (see writeSignature). */
  sig: unknown[];
  /** Where each message's fields start in `sig` (one more entry: the end). */
  at: number[];
  view: GovernorView;
  /**
   * A list (a snapshot) whose signature is written only if a later list needs it: a list the
   * caller handed again by identity is recognised without one.
   */
  pending: readonly unknown[] | null;
}


/** What the governor sees for a last message of approval responses only. */
const AWAITING_APPROVAL = '(tool approval given; the approved tools run next)';

const ROLES: readonly string[] = Object.freeze(['system', 'user', 'assistant', 'tool']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Text of a tool output, as the OpenAI and Anthropic providers of the AI SDK render it. */
function renderOutput(output: unknown, source: AiMessage): string | ContentPart[] {
  if (!isRecord(output)) return JSON.stringify(output) ?? '';
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? output.value : JSON.stringify(output.value) ?? '';
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? 'null';
    case 'execution-denied':
      return typeof output.reason === 'string' ? output.reason : 'Tool execution denied.';
    case 'content':
      if (Array.isArray(output.value)) {
        return output.value.map((p: unknown, at) => {
          const part = (isRecord(p) ? p : { type: 'unknown' }) as AiPart;
          const made = part.type === 'text' && typeof part.text === 'string' ? part.text : undefined;
          const copy: ContentPart = made !== undefined ? { type: 'text', text: made } : describe(part);
          return withOrigin(copy, { part, at, made, source });
        });
      }
      return JSON.stringify(output.value) ?? '';
    default:
      return JSON.stringify(output) ?? '';
  }
}

/** A JSON-safe stand-in for a part the governor only carries (files, reasoning, server tools). */
function describe(part: AiPart): ContentPart {
  const out: ContentPart = { type: part.type };
  for (const key of ['text', 'mediaType', 'filename', 'toolCallId', 'toolName', 'approvalId', 'input', 'output', 'url', 'fileId']) {
    const v = part[key];
    if (v !== undefined && (typeof v !== 'object' || v === null || isRecord(v) || Array.isArray(v))) out[key] = v;
  }
  return out;
}

/** The signature (or redacted data) a reasoning part carries in its provider options, if any. */
function reasoningSignature(part: AiPart): string | undefined {
  const options = part.providerOptions;
  if (!isRecord(options)) return undefined;
  for (const own of Object.values(options)) {
    if (!isRecord(own)) continue;
    for (const key of ['signature', 'redactedData', 'thoughtSignature']) if (typeof own[key] === 'string' && own[key] !== '') return own[key];
  }
  return undefined;
}

// The provider-options namespace of each family whose signed reasoning only its own API reads back.
const REASONING_FAMILY_OF: Readonly<Record<string, string>> = Object.freeze({
  anthropic: 'anthropic', bedrock: 'bedrock', google: 'gemini', vertex: 'gemini', openai: 'responses', azure: 'responses', openrouter: 'openrouter',
});

/**
 * The family whose signed state a reasoning part carries (a signature, redacted data, a thought
 * signature, Responses' encrypted content or item id), from its provider options' namespace;
 * undefined for plain reasoning text.
 */
function reasoningProducer(part: AiPart): string | undefined {
  const options = part.providerOptions;
  if (!isRecord(options)) return undefined;
  for (const [namespace, own] of Object.entries(options)) {
    const family = REASONING_FAMILY_OF[namespace];
    if (family === undefined || !isRecord(own)) continue;
    const signed = ['signature', 'redactedData', 'thoughtSignature', 'reasoningEncryptedContent', 'itemId'].some((key) => typeof own[key] === 'string' && own[key] !== '');
    if (signed) return family;
  }
  return undefined;
}

/** Which provider ran a provider-executed tool part: its provider options' namespace, else its id's form. */
function serverToolProducer(part: AiPart): 'anthropic' | 'responses' {
  const options = isRecord(part.providerOptions) ? part.providerOptions : {};
  if ('openai' in options || 'azure' in options) return 'responses';
  if ('anthropic' in options) return 'anthropic';
  return /^(ws|ci|fs|ig|mcp|lsh|ctc)_/.test(String(part.toolCallId ?? '')) ? 'responses' : 'anthropic';
}

/**
 * Whether a part is Anthropic's server-side compaction block as `@ai-sdk/anthropic` carries it:
 * a text part marked `providerOptions.anthropic.type: 'compaction'` (it sends it back as
 * `{ type: 'compaction', content }`).
 */
function isAnthropicCompaction(part: AiPart): boolean {
  const anthropic = isRecord(part.providerOptions) ? part.providerOptions.anthropic : undefined;
  return part.type === 'text' && typeof part.text === 'string' && isRecord(anthropic) && anthropic.type === 'compaction';
}

function contentPart(part: AiPart, at: number, source: AiMessage): ContentPart {
  // The governor sees it as the block itself (a server compaction anchor: counted, kept in front
  // of a cut, never shortened); it goes back as the very same part.
  if (isAnthropicCompaction(part)) return withOrigin({ type: 'compaction', content: part.text }, { part, at, made: undefined, source });
  if (part.type === 'text' && typeof part.text === 'string') {
    return withOrigin({ type: 'text', text: part.text }, { part, at, made: part.text, source });
  }
  const copy = describe(part);
  if (part.type === 'reasoning') {
    // Signed reasoning is marked for the governor's targets (Anthropic and Bedrock drop an
    // aborted turn of unsigned reasoning only); not enumerable, so counts and output do not change.
    const signature = reasoningSignature(part);
    if (signature !== undefined) Object.defineProperty(copy, 'signature', { value: signature, enumerable: false });
    // Whose signed state it is, for the governor's model-switch rule (another family's target
    // gets it removed, and the report says so): not enumerable either.
    const producer = reasoningProducer(part);
    if (producer !== undefined) Object.defineProperty(copy, 'producer', { value: producer, enumerable: false });
  } else if ((part.type === 'tool-call' && part.providerExecuted === true) || (part.type === 'tool-result' && source.role === 'assistant')) {
    // A provider-executed tool (Anthropic web search, OpenAI web_search_call): marked for the
    // governor's model-switch rule (only its producer's API takes it back; others get text).
    Object.defineProperty(copy, 'providerExecuted', { value: true, enumerable: false });
    Object.defineProperty(copy, 'producer', { value: serverToolProducer(part), enumerable: false });
  }
  return withOrigin(copy, { part, at, made: undefined, source });
}

function toolCall(part: AiPart, at: number, source: AiMessage): ToolCall {
  const args = typeof part.input === 'undefined' ? '{}' : JSON.stringify(part.input) ?? '{}';
  const call: ToolCall = { id: String(part.toolCallId ?? ''), type: 'function', function: { name: String(part.toolName ?? ''), arguments: args } };
  // A Gemini thought signature (provider options) is shown to the governor where the OpenAI
  // shape keeps it, so Gemini's target sees the call is signed; not enumerable, so counts and
  // output do not change (the part itself goes back with its provider options).
  const google = isRecord(part.providerOptions) ? part.providerOptions.google : undefined;
  const signature = isRecord(google) ? google.thoughtSignature : undefined;
  if (typeof signature === 'string' && signature !== '') Object.defineProperty(call, 'extra_content', { value: { google: { thought_signature: signature } }, enumerable: false });
  return withOrigin(call, { part, at, made: args, source });
}

function convertOne(msg: AiMessage, index: number, where: string, awaiting?: ReadonlySet<string>): Message[] {
  const origin: MessageOrigin = { source: msg };
  const { role, content } = msg;
  if (role === 'system') {
    if (typeof content !== 'string') throw new ValidationError(`${where}: messages[${index}] (system) must have string content`, [index, 'content']);
    return [withMessageOrigin({ role: 'system', content }, origin)];
  }
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new ValidationError(`${where}: messages[${index}] (${role}) must have string or array content`, [index, 'content']);
  }
  for (let i = 0; Array.isArray(content) && i < content.length; i++) {
    if (!isRecord(content[i]) || typeof content[i].type !== 'string') {
      throw new ValidationError(`${where}: messages[${index}].content[${i}] must be a part object with a string type`, [index, 'content', i]);
    }
  }
  if (role === 'user') {
    const c = typeof content === 'string' ? content : content.map((p, at) => contentPart(p, at, msg));
    return [withMessageOrigin({ role: 'user', content: c }, origin)];
  }
  if (role === 'assistant') {
    if (typeof content === 'string') return [withMessageOrigin({ role: 'assistant', content }, origin)];
    const parts: ContentPart[] = [];
    const calls: ToolCall[] = [];
    content.forEach((p, at) => {
      if (p.type === 'tool-call' && p.providerExecuted !== true && !awaiting?.has(String(p.toolCallId))) calls.push(toolCall(p, at, msg));
      else parts.push(contentPart(p, at, msg));
    });
    const out: Message = { role: 'assistant', content: parts.length === 0 && calls.length > 0 ? null : parts };
    if (calls.length > 0) out.tool_calls = calls;
    return [withMessageOrigin(out, origin)];
  }
  if (typeof content === 'string') throw new ValidationError(`${where}: messages[${index}] (tool) must have array content`, [index, 'content']);
  // Approval responses are not results: they travel with the result after them (or the last).
  const out: Message[] = [];
  let pending: AiPart[] = [];
  for (const part of content) {
    if (part.type !== 'tool-result') {
      pending.push(part);
      continue;
    }
    const rendered = renderOutput(part.output, msg);
    const o: MessageOrigin = { source: msg, part, content: rendered };
    if (pending.length > 0) o.before = pending;
    pending = [];
    out.push(withMessageOrigin({ role: 'tool', tool_call_id: String(part.toolCallId ?? ''), name: String(part.toolName ?? ''), content: rendered }, o));
  }
  if (pending.length > 0 && out.length > 0) {
    const last = out[out.length - 1];
    const o = originOf<MessageOrigin>(last)!;
    o.after = pending;
  }
  return out;
}

// Markers in a signature (never field values: module-private objects).
const PARTS = Object.freeze({ parts: true });
const FIELDS = Object.freeze({ fields: true });
const NOT_AN_OBJECT = Object.freeze({ notAnObject: true });

/**
 * Appends the signature of `msg` to `sig`. A message is recognised by the fields the prompt's
 * types define — its role, provider options and content (a string, or a part list) — and each
 * part by its type: a text part by its text, a tool call by its id, name, input and
 * provider-executed flag, a tool result by its id, name and output, each with its provider
 * options; those are every field the AI SDK gives these parts, and all a provider reads. Any
 * other part (files, reasoning, approvals, …) is recognised by all its own fields, in order.
 * Values are compared by identity, so a rebuilt message whose fields hold the same strings,
 * inputs and outputs (as the AI SDK rebuilds them) matches, and any other message does not.
 * Named fields are read directly (a rebuilt 10,000-message prompt is recognised in one pass
 * that never enumerates the parts it knows).
 */
function writeSignature(msg: Record<string, unknown>, sig: unknown[]): void {
  const content = msg.content;
  sig.push(msg.role, msg.providerOptions);
  if (!Array.isArray(content)) {
    sig.push(content);
    return;
  }
  sig.push(PARTS, content.length);
  for (const p of content as unknown[]) {
    if (!isRecord(p)) {
      sig.push(NOT_AN_OBJECT);
      continue;
    }
    const type = p.type;
    if (type === 'text') sig.push(type, p.providerOptions, p.text);
    else if (type === 'tool-call') sig.push(type, p.providerOptions, p.toolCallId, p.toolName, p.input, p.providerExecuted);
    else if (type === 'tool-result') sig.push(type, p.providerOptions, p.toolCallId, p.toolName, p.output);
    else {
      const count = sig.length + 1;
      sig.push(FIELDS, 0);
      let m = 0;
      for (const k in p) {
        sig.push(k, p[k]);
        m++;
      }
      sig[count] = m;
    }
  }
}

// How a signature's values are compared decides the cost of recognising a rebuilt prompt
// (issue 31: reading a 10,000-message prompt's fields once costs about one warm `govern`).
// `!==` on two strings or objects first checks what each one is, reading its header: for the
// distinct strings and objects of a prompt (texts, call ids, inputs, outputs) a cache miss per
// field. Object.is answers from the two pointers when they are equal (a rebuilt prompt shares
// those values), at the cost of a call. A field that is mostly undefined (provider options)
// is compared with undefined inline; roles, part types and tool names (a few strings, read
// again and again) with `!==`. Object.is differs from `===` only for NaN and -0, which no field
// the signature reads holds as the SDK builds them.
const same = Object.is;

/** {@link same} for a value that is mostly undefined: then compared inline (no call, nothing read). */
function sameOrUndefined(a: unknown, b: unknown): boolean {
  return a === undefined ? b === undefined : same(a, b);
}

/**
 * Whether `msg` has exactly the signature recorded from `sig[start]` on (see
 * {@link writeSignature}). A message or part that is null or not an object never matches (its
 * signature is a marker no field holds; the shapes read here never throw on other values).
 */
function messageMatches(msg: unknown, sig: readonly unknown[], start: number): boolean {
  if (msg === null || typeof msg !== 'object') return false;
  const m = msg as Record<string, unknown>;
  const content = m.content;
  if (m.role !== sig[start] || !sameOrUndefined(m.providerOptions, sig[start + 1])) return false;
  if (!Array.isArray(content)) return same(content, sig[start + 2]);
  return sig[start + 2] === PARTS && sig[start + 3] === content.length && partsMatch(content, sig, start + 4);
}

/**
 * How many of `messages[from..to)` have exactly the signatures recorded for their positions
 * (message `i`'s at `sig[at[i]..]`, see {@link messageMatches}), counted from `from` up to the
 * first that differs.
 */
function matchingRun(messages: readonly unknown[], sig: readonly unknown[], at: readonly number[], from: number, to: number): number {
  let i = from;
  while (i < to && messageMatches(messages[i], sig, at[i])) i++;
  return i;
}

/** Whether the parts of a content list match the signature from `sig[j]` on (see {@link writeSignature}). */
function partsMatch(content: readonly unknown[], sig: readonly unknown[], j: number): boolean {
  for (let i = 0; i < content.length; i++) {
    const p = content[i] as Record<string, unknown> | null | undefined;
    if (p === null || typeof p !== 'object') return false;
    const type = p.type;
    if (type === sig[j]) {
      if (type === 'text') {
        if (!sameOrUndefined(p.providerOptions, sig[j + 1]) || !same(p.text, sig[j + 2])) return false;
        j += 3;
      } else if (type === 'tool-call') {
        if (!sameOrUndefined(p.providerOptions, sig[j + 1]) || !same(p.toolCallId, sig[j + 2]) || p.toolName !== sig[j + 3] || !same(p.input, sig[j + 4]) || !sameOrUndefined(p.providerExecuted, sig[j + 5])) return false;
        j += 6;
      } else if (type === 'tool-result') {
        if (!sameOrUndefined(p.providerOptions, sig[j + 1]) || !same(p.toolCallId, sig[j + 2]) || p.toolName !== sig[j + 3] || !same(p.output, sig[j + 4])) return false;
        j += 5;
      } else {
        return false;
      }
      continue;
    }
    // A part recognised by all its fields (its type among them).
    if (sig[j] !== FIELDS) return false;
    const count = sig[j + 1] as number;
    j += 2;
    let m = 0;
    for (const k in p) {
      if (m === count || sig[j] !== k || !same(sig[j + 1], p[k])) return false;
      j += 2;
      m++;
    }
    if (m !== count) return false;
  }
  return true;
}

// How many of a prompt's last messages sameAsRecord compares first. A prompt that differs from
// the last one mostly differs there (a step's new messages, a result that arrived) and is told
// apart after a few messages; the rest is then compared front to back, the order the SDK
// allocated its objects in (measured on generateText's prompts of 10,000 messages: reading them
// back to front cost 0.10-0.15 ms more per call, ~25% of the reading).
const TAIL_FIRST = 8;

/**
 * Whether `messages` is, message for message, the list `record` was made from (its fields equal
 * in the signature's sense, the objects the same or rebuilt). The last {@link TAIL_FIRST}
 * messages are compared first, then the rest from the start.
 */
export function sameAsRecord(record: PreviousView, messages: readonly unknown[]): boolean {
  if (recordLength(record) !== messages.length) return false;
  complete(record);
  const { sig, at } = record;
  const n = messages.length;
  const tail = Math.max(0, n - TAIL_FIRST);
  return matchingRun(messages, sig, at, tail, n) === n && matchingRun(messages, sig, at, 0, tail) === tail;
}

/** Writes the signature of `messages[from..]` after the first `from` of `sig`/`at`. */
function writeFrom(messages: readonly unknown[], from: number, sig: unknown[], at: number[]): void {
  sig.length = at[from];
  at.length = from + 1;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i];
    if (isRecord(m)) writeSignature(m, sig);
    else sig.push(NOT_AN_OBJECT);
    at.push(sig.length);
  }
}

/** Writes a pending record's signature (see {@link PreviousView.pending}). */
function complete(record: PreviousView): void {
  if (record.pending === null) return;
  writeFrom(record.pending, 0, record.sig, record.at);
  record.pending = null;
}

/** How many messages a record stands for. */
function recordLength(record: PreviousView): number {
  return record.pending !== null ? record.pending.length : record.at.length - 1;
}

/**
 * The record of `messages` (governed as `view`) for the next call: `prior`'s arrays taken over
 * (the caller drops `prior`) and brought up to date past the `shared` messages they match, as
 * {@link convertToGovernorView} found them; `shared` null: the list was recognised by identity,
 * and its signature is written only if a later list needs it.
 */
export function recordPrompt(messages: readonly unknown[], view: GovernorView, prior: PreviousView | undefined, shared: number | null): PreviousView {
  if (shared === null) return { sig: prior?.sig ?? [], at: prior?.at ?? [0], view, pending: messages.slice() };
  const record: PreviousView = prior !== undefined && prior.pending === null ? { sig: prior.sig, at: prior.at, view, pending: null } : { sig: [], at: [0], view, pending: null };
  writeFrom(messages, Math.min(prior !== undefined && prior.pending === null ? shared : 0, record.at.length - 1), record.sig, record.at);
  return record;
}

/** How many leading messages of `messages` match `previous` (equal fields, same or rebuilt objects). */
function sharedWith(previous: PreviousView, messages: readonly unknown[]): number {
  complete(previous);
  const n = Math.min(previous.at.length - 1, messages.length);
  return matchingRun(messages, previous.sig, previous.at, 0, n);
}

/**
 * Converts a list in either AI SDK dialect to the governor's view. Conversions are kept in
 * `memo` (a Governor's, see dialectMemoOf) per message object; `previous` (the record of an
 * earlier list of the same conversation, see {@link recordPrompt}) lets a list the SDK rebuilt
 * from the same data reuse that view, so the governor sees the same objects and its memos stay
 * warm. Throws {@link ValidationError} (naming the index) for anything that is not a message of
 * those shapes (before anything is governed).
 */
export function toGovernorView(messages: readonly unknown[], where: string, memo: DialectMemo, previous?: PreviousView): GovernorView {
  return convertToGovernorView(messages, where, memo, previous).view;
}

/**
 * {@link toGovernorView}, and how many leading messages matched `previous` (what
 * {@link recordPrompt} needs to bring the record up to date without reading them again).
 */
export function convertToGovernorView(messages: readonly unknown[], where: string, memo: DialectMemo, earlier?: PreviousView): { view: GovernorView; shared: number | null } {
  if (!Array.isArray(messages)) throw new ValidationError(`${where}: messages must be an array`);
  // A view whose parts hide awaiting calls stood for its own tail only: the next list (the
  // approved calls' results added) converts those turns again.
  const previous = earlier?.view.awaiting === true ? undefined : earlier;
  const cache = memo.weak<object, Message[]>('ai-sdk:message');
  const views = memo.weak<object, KnownView>('ai-sdk:view');
  const first = messages[0] as unknown;
  const last = messages[messages.length - 1] as unknown;
  const approvalTail = isRecord(last) && last.role === 'tool' && Array.isArray(last.content)
    && last.content.some((p: unknown) => isRecord(p) && p.type === 'tool-approval-response');
  // The same history again (or grown at the end) reuses the view of the part already seen:
  // the governor then gets the same list, or a list with the same prefix, and stays warm. A list
  // rebuilt from the same data (the AI SDK builds each call's prompt anew, sharing the strings,
  // inputs and outputs) reuses the view of the earlier list it repeats.
  const known = isRecord(first) && !approvalTail ? views.get(first) : undefined;
  let base: GovernorView | undefined;
  let from = 0;
  let reused = false;
  let matched: number | null = null;
  if (known !== undefined && known.source.length <= messages.length && samePrefix(known.source, messages)) {
    if (known.source.length === messages.length) return { view: known.view, shared: null };
    base = known.view;
    from = known.source.length;
  } else if (previous !== undefined && !approvalTail) {
    matched = sharedWith(previous, messages);
    const length = recordLength(previous);
    if (matched > 0 && matched === length) {
      base = previous.view;
      from = matched;
      // Equal messages, not (as far as this knows) the same objects: the view's origins name
      // the earlier ones.
      reused = true;
      if (from === messages.length) {
        const view: GovernorView = { ...previous.view, reused };
        if (isRecord(first)) views.set(first, { source: messages.slice(), view });
        return { view, shared: matched };
      }
    }
  }
  const out: Message[] = from > 0 ? base!.messages.slice() : [];
  const owner: number[] = from > 0 ? base!.owner.slice() : [];
  const parts: Message[][] = from > 0 ? base!.parts.slice() : [];
  const previousLength = previous === undefined || approvalTail ? 0 : recordLength(previous);
  // Whether every message converted below is converted here (new objects: see grownFresh).
  let fresh = true;
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i] as unknown;
    if (!isRecord(msg)) throw new ValidationError(`${where}: messages[${i}] must be an object`, [i]);
    let converted = cache.get(msg);
    if (converted === undefined && i < previousLength && previous!.view.parts[i] !== undefined && (complete(previous!), matchingRun(messages, previous!.sig, previous!.at, i, i + 1) === i + 1)) {
      converted = previous!.view.parts[i];
      reused = true;
    }
    if (converted !== undefined) fresh = false;
    else {
      if (typeof msg.role !== 'string' || !ROLES.includes(msg.role)) {
        throw new ValidationError(`${where}: messages[${i}] has role ${JSON.stringify(msg.role)}; expected system, user, assistant or tool`, [i, 'role']);
      }
      converted = convertOne(msg as AiMessage, i, where);
      cache.set(msg, converted);
    }
    parts.push(converted);
    for (const m of converted) {
      out.push(m);
      owner.push(i);
    }
  }
  if (approvalTail && hideAwaitingCalls(messages as readonly AiMessage[], parts, where)) {
    return { view: { messages: parts.flat(), owner: parts.flatMap((p, i) => p.map(() => i)), parts, awaiting: true }, shared: matched };
  }
  const view: GovernorView = reused ? { messages: out, owner, parts, reused } : { messages: out, owner, parts };
  if (from > 0) {
    view.grownFrom = base!.messages;
    view.grownFromParts = base!.parts;
    if (fresh) view.grownFresh = true;
  }
  // A snapshot, not the array: callers may push to their array between calls.
  if (isRecord(first)) views.set(first, { source: messages.slice(), view });
  return { view, shared: matched };
}

// Object.is: the pointers alone, without reading each message object's header (see `same`).
function samePrefix(prefix: readonly unknown[], list: readonly unknown[]): boolean {
  for (let i = prefix.length - 1; i >= 0; i--) if (!same(prefix[i], list[i])) return false;
  return true;
}

/**
 * The view {@link convertToGovernorView} made last for exactly these message objects (by
 * identity, in order), if it still knows it.
 */
export function knownViewOf(messages: readonly unknown[], memo: DialectMemo): GovernorView | undefined {
  const first = messages[0] as unknown;
  if (!isRecord(first)) return undefined;
  const known = memo.weak<object, KnownView>('ai-sdk:view').get(first);
  return known !== undefined && known.source.length === messages.length && samePrefix(known.source, messages) ? known.view : undefined;
}

/** Makes {@link knownViewOf} (and the next conversion) know `view` as the view of these message objects. */
export function rememberView(messages: readonly unknown[], view: GovernorView, memo: DialectMemo): void {
  const first = messages[0] as unknown;
  // A snapshot, not the array: callers may push to their array between calls.
  if (isRecord(first)) memo.weak<object, KnownView>('ai-sdk:view').set(first, { source: messages.slice(), view });
}

/**
 * Calls approved (or denied) in the last message but not yet run: `generateText` runs them and
 * adds their results itself before calling the model, so the governor must not answer them with
 * a stand-in. They stay in their assistant turn as parts the governor only carries.
 */
function hideAwaitingCalls(messages: readonly AiMessage[], parts: Message[][], where: string): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== 'tool' || !Array.isArray(last.content)) return false;
  const approvals = new Set<unknown>();
  const results = new Set<unknown>();
  for (const p of last.content) {
    if (p.type === 'tool-approval-response') approvals.add(p.approvalId);
    else if (p.type === 'tool-result') results.add(p.toolCallId);
  }
  if (approvals.size === 0) return false;
  const awaiting = new Map<number, Set<string>>();
  for (let i = messages.length - 2; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const p of m.content) {
      if (p.type === 'tool-approval-request' && approvals.has(p.approvalId) && !results.has(p.toolCallId)) {
        const ids = awaiting.get(i) ?? new Set<string>();
        ids.add(String(p.toolCallId));
        awaiting.set(i, ids);
      }
    }
  }
  for (const [i, ids] of awaiting) parts[i] = convertOne(messages[i], i, where, ids);
  // The SDK answers the turn itself (the results it adds are the user side of the turn): stand
  // in for that, so the governor does not take the assistant turn for a trailing one.
  const lastIndex = messages.length - 1;
  if (awaiting.size > 0 && parts[lastIndex].length === 0) {
    parts[lastIndex] = [withMessageOrigin({ role: 'user', content: AWAITING_APPROVAL }, { source: last })];
  }
  return awaiting.size > 0;
}
