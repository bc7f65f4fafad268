import type { ContentPart, Message } from '@nanobot/schema';
import { emptyResultMessage } from '../../constants.js';
import { GOVERN_TARGETS, isInstructionRole, type GovernTarget } from './govern-target.js';
import { isBlankContent, isBlankText, isBlankTextPart } from '../../internal/content.js';
import { hasToolCallsValue } from '../../internal/tool-calls.js';
import type { TargetChangeReason } from '../../report/govern-report.js';
import { TARGET_BEHAVIOURS } from './profiles/behaviours.js';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import { convertForeignArtifacts } from './foreign-artifacts.js';
import { hasRejectedId, ToolCallIdMap } from './tool-call-id-map.js';

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

export { shortToolCallId } from './tool-call-id-map.js';

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
  const converted = convertForeignArtifacts(msg, TARGET_BEHAVIOURS[target]);
  if (converted === null) return judgeMessage(msg, target, started);
  const v = judgeMessage(converted.out, target, started);
  if (v.reason === null) return { out: converted.out, reason: converted.reason };
  return v.out === null ? v : { out: v.out, reason: converted.reason };
}

function judgeMessage(msg: Message, target: GovernTarget, started: boolean): Verdict {
  const v = judgeContent(msg, target, started);
  if (!TARGET_BEHAVIOURS[target].reasoningContentOnToolCalls || msg.role !== 'assistant' || (v.out === null && v.reason !== null) || !hasToolCallsValue(msg)) return v;
  const base = v.out ?? msg;
  if (typeof base.reasoning_content === 'string') return v;
  return { out: { ...base, reasoning_content: '' }, reason: v.reason ?? 'reasoning-content-added' };
}

function judgeContent(msg: Message, target: GovernTarget, started: boolean): Verdict {
  const profile = TARGET_BEHAVIOURS[target];
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
  const keys = VERDICT_KEYS[target];
  return derive.derive(msg, started && isInstructionRole(msg.role) ? keys[1] : keys[0], () => judge(msg, target, started));
}

/**
 * The cache keys of the verdicts per target (an instruction after the conversation started has
 * its own): made once, not a new string per message and call, which the cache would keep with
 * every message it holds a verdict for.
 */
const VERDICT_KEYS: Readonly<Record<GovernTarget, readonly [string, string]>> = Object.freeze(
  Object.fromEntries(GOVERN_TARGETS.map((t) => [t, Object.freeze([`legalize:${t}`, `legalize:${t}:mid`] as const)])) as Record<GovernTarget, readonly [string, string]>,
);

/**
 * Makes every message's content and role acceptable to `target` (see {@link GovernTarget}),
 * without losing anything a model can read:
 * - an assistant turn with no calls and no readable content (aborted, reasoning-only) is
 *   dropped; whitespace or an empty list next to tool calls becomes `null`;
 * - a user message with no content gets `(empty)`, a tool result `(<name> completed with no
 *   output)`; an instruction with no content is dropped;
 * - for Anthropic (`'anthropic'`, `'any'`): blank text parts are removed, `developer` becomes
 *   `system`, and a `system` / `developer` message after the conversation started becomes a
 *   user message headed `[System message]` / `[Developer message]` in its place;
 * - tool-call ids the target's profile rejects are renamed, call and results alike, each when
 *   it first appears ({@link ToolCallIdMap}: a grown history keeps the ids it had).
 * Role alternation is {@link enforceRoleAlternation}'s job. Pure: the same array when nothing
 * changes; unchanged messages are the input objects.
 */
export function legalizeForTarget(input: readonly Message[], options: { target: GovernTarget; derive?: DerivationCache }): LegalizeForTargetResult {
  const target = options.target;
  const derive = options.derive ?? NO_CACHE;
  let out: Message[] | null = null;
  const changes: TargetChange[] = [];
  let started = false;
  let ids: ToolCallIdMap | null = null;
  for (let i = 0; i < input.length; i++) {
    const msg = input[i];
    ids ??= idMapFrom(input, i, target, derive);
    const v = legalizeMessage(msg, i, target, started, ids, derive);
    if (!isInstructionRole(msg.role)) started = true;
    if (v.reason === null) {
      out?.push(msg);
      continue;
    }
    out ??= input.slice(0, i);
    changes.push({ index: i, to: v.out === null ? null : out.length, reason: v.reason });
    if (v.out !== null) out.push(v.out);
  }
  return { messages: out ?? (input as Message[]), changes };
}

/**
 * The id map a fold over `messages` needs from index `i` on: null while the target accepts every
 * id so far (nothing to rename), else a map seeded with the ids before `i` (all accepted).
 */
export function idMapFrom(messages: readonly Message[], i: number, target: GovernTarget, derive: DerivationCache): ToolCallIdMap | null {
  const profile = TARGET_BEHAVIOURS[target];
  const pattern = profile.toolCallIdPattern;
  if (pattern === null || !hasRejectedId(messages[i], pattern, derive)) return null;
  return new ToolCallIdMap(pattern, profile.toolCallIdRename, messages, i);
}

/**
 * What the fold does with `msg` (input index `at`): its verdict, with its ids renamed by `ids`
 * (when a map is active); a rename alone is reported with the map's reason. `reason: null`
 * keeps `msg` itself. The verdict is taken on `msg`, not on its renamed copy: no rule reads a
 * tool-call id and none adds, drops or reorders calls, so the two commute, and `msg`'s verdict
 * is the one a target that renames nothing remembers too (a renamed copy is a new object each
 * grown request: judging it cost a cache entry of its own per copy).
 */
export function legalizeMessage(msg: Message, at: number, target: GovernTarget, started: boolean, ids: ToolCallIdMap | null, derive: DerivationCache): Verdict {
  const v = verdict(msg, target, started, derive);
  if (ids === null) return v;
  // Ids are named where they first appear, dropped message or not.
  const renamed = ids.apply(msg, at, derive);
  if (v.reason === null) return renamed === msg ? v : { out: renamed, reason: ids.reason };
  return v.out === null || renamed === msg ? v : { out: ids.apply(v.out, at, derive), reason: v.reason };
}

/** {@link legalizeForTarget} with the report's entries (input indices removed, output indices added). */
export function legalizeWithEntries(messages: readonly Message[], target: GovernTarget, derive: DerivationCache = NO_CACHE): { messages: Message[]; removed: ReportedMessage[]; added: ReportedMessage[] } {
  const legal = legalizeForTarget(messages, { target, derive });
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  for (const c of legal.changes) {
    removed.push(ref(messages[c.index], c.index, c.reason));
    if (c.to !== null) added.push(ref(legal.messages[c.to], c.to, c.reason));
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
