import type { ContentPart, Message } from '@nanobot/schema';
import { emptyResultMessage } from '../../constants.js';
import { isInstructionRole, type GovernTarget } from './govern-target.js';
import { isBlankContent, isBlankText, isBlankTextPart } from '../../internal/content.js';
import { hasToolCallsValue } from '../../internal/tool-calls.js';
import type { TargetChangeReason } from '../../report/govern-report.js';
import { ANTHROPIC_TOOL_ID_PATTERN } from './profiles/anthropic.js';
import { TARGET_PROFILES } from './profiles/index.js';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import { convertForeignArtifacts } from './foreign-artifacts.js';

/** Content given to a user message that has none (the reference providers' placeholder). */
export const EMPTY_USER_CONTENT = '(empty)';

/**
 * The header of the user-side note that carries a mid-history `system` / `developer` message
 * for Anthropic (which takes instructions only as the system prompt). The note stays where the
 * instruction was, so nothing is lost and the prompt prefix before it stays byte-stable.
 */
export function instructionNoteHeader(role: string): string {
  return `[${role === 'developer' ? 'Developer' : 'System'} message]`;
}

export type { TargetChangeReason } from '../../report/govern-report.js';

export { ANTHROPIC_TOOL_ID_PATTERN } from './profiles/anthropic.js';

/** The call ids of one assistant message that do not match `pattern`, or null. */
function badIdsOf(m: Message, pattern: RegExp): string[] | null {
  let bad: string[] | null = null;
  for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    const id = (call as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && !pattern.test(id)) (bad ??= []).push(id);
  }
  return bad;
}

/**
 * Call ids in `messages` that do not match `pattern` (Anthropic's by default), or null when
 * there are none. With a cache, each message is checked once.
 */
export function badIds(messages: readonly Message[], pattern: RegExp = ANTHROPIC_TOOL_ID_PATTERN, derive: DerivationCache = NO_CACHE): Set<string> | null {
  let bad: Set<string> | null = null;
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    const ids = derive.derive(m, pattern, () => badIdsOf(m, pattern));
    if (ids !== null) for (const id of ids) (bad ??= new Set()).add(id);
  }
  return bad;
}

/** 9 characters of a-z, A-Z, 0-9 derived from `text` (two FNV-1a hashes, 53 bits, base 62). */
export function shortToolCallId(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    h2 ^= h2 >>> 13;
  }
  let n = (h1 >>> 0) * 2 ** 21 + (h2 & 0x1fffff);
  let out = '';
  for (let k = 0; k < 9; k++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Renames call ids the target rejects, on the call and on its results, kept unique: `'sanitize'`
 * turns each other character into `_` (`call_1|fc_2` from the Responses API, ids with dots or
 * spaces); `'short-id'` derives 9 alphanumerics from the id (Mistral), so the same history gives
 * the same ids on every request. New names avoid every id the list keeps and each other; a
 * clash (never seen in practice) takes the next candidate, in order of first appearance.
 */
function renameIds(messages: readonly Message[], bad: Set<string>, how: 'sanitize' | 'short-id', changes: TargetChange[], derive: DerivationCache): Message[] {
  const taken = new Set<string>();
  for (const m of messages) for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    const id = (call as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && !bad.has(id)) taken.add(id);
  }
  const renamed = new Map<string, string>();
  for (const id of bad) {
    let next: string;
    if (how === 'short-id') {
      next = shortToolCallId(id);
      for (let n = 2; taken.has(next); n++) next = shortToolCallId(`${id}#${n}`);
    } else {
      const base = id.replace(/[^a-zA-Z0-9_-]/g, '_');
      next = base;
      for (let n = 2; taken.has(next); n++) next = `${base}_${n}`;
    }
    taken.add(next);
    renamed.set(id, next);
  }
  const reason: TargetChangeReason = how === 'short-id' ? 'tool-call-id-mapped' : 'tool-call-id-sanitized';
  // With a cache, a message renamed the same way is the same object on every request, so what
  // later steps derived from it (estimates, verdicts) is found again.
  return messages.map((m, i) => {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.some((c) => renamed.has(c.id))) {
      changes.push({ index: i, to: i, reason });
      const calls = m.tool_calls;
      const key = `rename:${calls.map((c) => renamed.get(c.id) ?? c.id).join('\u0000')}`;
      return derive.derive(m, key, (): Message => ({ ...m, tool_calls: calls.map((c) => (renamed.has(c.id) ? { ...c, id: renamed.get(c.id)! } : c)) }));
    }
    if (m.role === 'tool' && typeof m.tool_call_id === 'string' && renamed.has(m.tool_call_id)) {
      changes.push({ index: i, to: i, reason });
      const id = renamed.get(m.tool_call_id)!;
      return derive.derive(m, `rename:${id}`, (): Message => ({ ...m, tool_call_id: id }));
    }
    return m;
  });
}

/** One message {@link legalizeForTarget} dropped (`to: null`) or rewrote. */
export interface TargetChange {
  /** Index in the input. */
  index: number;
  /** Index in the output, or null when the message was dropped. */
  to: number | null;
  reason: TargetChangeReason;
}

/** Result of {@link legalizeForTarget}. */
export interface LegalizeForTargetResult {
  /** The same array when nothing changed; unchanged messages are the input objects. */
  messages: Message[];
  changes: TargetChange[];
}

/** What {@link legalizeForTarget} does with one message: keep it (`reason: null`), drop or replace it. */
export interface Verdict {
  out: Message | null;
  reason: TargetChangeReason | null;
}

const KEEP: Verdict = Object.freeze({ out: null, reason: null });

function withoutBlankParts(content: ContentPart[]): ContentPart[] {
  return content.filter((p) => !isBlankTextPart(p));
}

function noteContent(msg: Message): Message['content'] {
  const header = instructionNoteHeader(String(msg.role));
  const content = msg.content;
  if (typeof content === 'string') return `${header}\n${content}`;
  const parts = Array.isArray(content) ? withoutBlankParts(content) : [];
  return [{ type: 'text', text: header }, ...parts];
}

/** Part types that carry a model's reasoning (AI SDK `reasoning`, Anthropic `thinking`). */
const REASONING_PARTS: readonly unknown[] = Object.freeze(['reasoning', 'thinking', 'redacted_thinking']);

/**
 * Whether `content` holds reasoning and nothing else a model reads, none of it signed (a part is
 * signed when it carries a `signature` or redacted `data`): an aborted turn the API cannot take back.
 */
export function isUnsignedReasoningOnly(content: unknown): boolean {
  if (!Array.isArray(content) || content.length === 0) return false;
  let reasoning = false;
  for (const p of content as unknown[]) {
    if (isBlankTextPart(p)) continue;
    const part = p as { type?: unknown; signature?: unknown; data?: unknown } | null;
    if (part === null || typeof part !== 'object' || !REASONING_PARTS.includes(part.type)) return false;
    if ((typeof part.signature === 'string' && part.signature.length > 0) || part.signature === true || typeof part.data === 'string') return false;
    reasoning = true;
  }
  return reasoning;
}

function judge(msg: Message, target: GovernTarget, started: boolean): Verdict {
  // A model switch first (another family's signed reasoning removed, its server tool blocks as
  // text), then the content rules on what the target will actually get.
  const converted = convertForeignArtifacts(msg, TARGET_PROFILES[target]);
  if (converted === null) return judgeMessage(msg, target, started);
  const v = judgeMessage(converted.out, target, started);
  if (v.reason === null) return { out: converted.out, reason: converted.reason };
  return v.out === null ? v : { out: v.out, reason: converted.reason };
}

function judgeMessage(msg: Message, target: GovernTarget, started: boolean): Verdict {
  const v = judgeContent(msg, target, started);
  if (!TARGET_PROFILES[target].reasoningContentOnToolCalls || msg.role !== 'assistant' || (v.out === null && v.reason !== null) || !hasToolCallsValue(msg)) return v;
  const base = v.out ?? msg;
  if (typeof base.reasoning_content === 'string') return v;
  return { out: { ...base, reasoning_content: '' }, reason: v.reason ?? 'reasoning-content-added' };
}

function judgeContent(msg: Message, target: GovernTarget, started: boolean): Verdict {
  const profile = TARGET_PROFILES[target];
  const anthropic = profile.strictContent;
  const role = msg.role;
  const content = msg.content;
  const listHasBlank = anthropic && Array.isArray(content) && content.some(isBlankTextPart);
  if (isInstructionRole(role)) {
    if (isBlankContent(content)) return { out: null, reason: 'empty-instruction' };
    if (anthropic && started) {
      return { out: { ...msg, role: 'user', content: noteContent(msg) }, reason: 'instruction-as-user-note' };
    }
    if (anthropic && role === 'developer') {
      return { out: { ...msg, role: 'system', ...(listHasBlank ? { content: withoutBlankParts(content as ContentPart[]) } : {}) }, reason: 'developer-as-system' };
    }
    if (listHasBlank) return { out: { ...msg, content: withoutBlankParts(content as ContentPart[]) }, reason: 'blank-text-removed' };
    return KEEP;
  }
  if (role === 'assistant') {
    if (hasToolCallsValue(msg)) {
      // OpenAI accepts `null` next to tool calls and Anthropic then sends only tool_use blocks;
      // whitespace would become a rejected blank text block.
      if (Array.isArray(content)) {
        if (content.length === 0) return { out: { ...msg, content: null }, reason: 'empty-content-list' };
        if (!listHasBlank) return KEEP;
        const parts = withoutBlankParts(content);
        return { out: { ...msg, content: parts.length > 0 ? parts : null }, reason: 'blank-text-removed' };
      }
      if (anthropic && typeof content === 'string' && content.length > 0 && isBlankText(content)) {
        return { out: { ...msg, content: null }, reason: 'blank-text-removed' };
      }
      return KEEP;
    }
    if (isBlankContent(content)) return { out: null, reason: 'empty-assistant' };
    if (profile.dropUnsignedReasoningTurns && isUnsignedReasoningOnly(content)) return { out: null, reason: 'unsigned-reasoning-only' };
  } else if (role === 'user') {
    if (isBlankContent(content)) return { out: { ...msg, content: EMPTY_USER_CONTENT }, reason: 'empty-user' };
  } else if (role === 'tool') {
    if (isBlankContent(content)) {
      return { out: { ...msg, content: emptyResultMessage(typeof msg.name === 'string' && msg.name ? msg.name : 'tool') }, reason: 'empty-tool-result' };
    }
  }
  if (listHasBlank) return { out: { ...msg, content: withoutBlankParts(content as ContentPart[]) }, reason: 'blank-text-removed' };
  return KEEP;
}

/**
 * The verdict on `msg` for `target`, `started` once a non-instruction message came before. With
 * a cache, remembered per message, target and situation, so a runner's next request reuses the
 * same rewritten objects (their estimates stay cached, the prompt prefix stable).
 */
export function verdict(msg: Message, target: GovernTarget, started: boolean, derive: DerivationCache = NO_CACHE): Verdict {
  const key = started && isInstructionRole(msg.role) ? `legalize:${target}:mid` : `legalize:${target}`;
  return derive.derive(msg, key, () => judge(msg, target, started));
}

/**
 * Makes every message's content and role acceptable to `target` (see {@link GovernTarget}),
 * without losing anything a model can read:
 * - an assistant turn with no calls and no readable content (aborted, reasoning-only) is
 *   dropped; whitespace or an empty list next to tool calls becomes `null`;
 * - a user message with no content gets `(empty)`, a tool result `(<name> completed with no
 *   output)`; an instruction with no content is dropped;
 * - for Anthropic (`'anthropic'`, `'any'`): blank text parts are removed, `developer` becomes
 *   `system`, and a `system` / `developer` message after the conversation started becomes a
 *   user message headed `[System message]` / `[Developer message]` in its place; tool-call ids
 *   outside Anthropic's `^[a-zA-Z0-9_-]+$` are renamed (call and results alike).
 * Role alternation is {@link enforceRoleAlternation}'s job. Pure: the same array when nothing
 * changes; unchanged messages are the input objects.
 */
export function legalizeForTarget(input: readonly Message[], options: { target: GovernTarget; derive?: DerivationCache }): LegalizeForTargetResult {
  const target = options.target;
  const derive = options.derive ?? NO_CACHE;
  const profile = TARGET_PROFILES[target];
  const pattern = profile.toolCallIdPattern;
  const bad = pattern === null ? null : badIds(input, pattern, derive);
  const idChanges: TargetChange[] = [];
  const messages = bad === null ? input : renameIds(input, bad, profile.toolCallIdRename, idChanges, derive);
  const first = legalizeContent(messages, target, derive);
  if (bad === null) return first;
  // Renaming keeps positions, so content changes re-index from the renamed list. Both lists are
  // in input order: one merge pass (a lookup per id change was quadratic on long histories).
  const content = first.changes;
  const changes: TargetChange[] = [];
  let k = 0;
  let dropped = 0;
  for (const c of idChanges) {
    while (k < content.length && content[k].index < c.index) {
      if (content[k].to === null) dropped++;
      changes.push(content[k++]);
    }
    if (k < content.length && content[k].index === c.index) continue;
    changes.push({ index: c.index, to: c.index - dropped, reason: c.reason });
  }
  while (k < content.length) changes.push(content[k++]);
  return { messages: first.messages, changes };
}

function legalizeContent(messages: readonly Message[], target: GovernTarget, derive: DerivationCache): LegalizeForTargetResult {
  let out: Message[] | null = null;
  const changes: TargetChange[] = [];
  let started = false;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const v = verdict(msg, target, started, derive);
    if (!isInstructionRole(msg.role)) started = true;
    if (v.reason === null) {
      out?.push(msg);
      continue;
    }
    out ??= messages.slice(0, i);
    changes.push({ index: i, to: v.out === null ? null : out.length, reason: v.reason });
    if (v.out !== null) out.push(v.out);
  }
  return { messages: out ?? (messages as Message[]), changes };
}

/** {@link legalizeForTarget} with the report's entries (input indices removed, output indices added). */
export function legalizeWithEntries(messages: readonly Message[], target: GovernTarget, derive: DerivationCache = NO_CACHE): { messages: Message[]; removed: ReportedMessage[]; added: ReportedMessage[] } {
  const legal = legalizeForTarget(messages, { target, derive });
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  for (const c of legal.changes) {
    removed.push({ ...ref(messages[c.index], c.index), reason: c.reason });
    if (c.to !== null) added.push({ ...ref(legal.messages[c.to], c.to), reason: c.reason });
  }
  return { messages: legal.messages, removed, added };
}

/** The step (with a target): content and instructions as the target's profile requires. */
export const legalizeForTargetStep = defineStep({
  name: 'legalizeForTarget',
  may: ['drop', 'rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => ctx.target !== null,
  run: (list, ctx) => legalizeWithEntries(list, ctx.target!, ctx.derive),
});
