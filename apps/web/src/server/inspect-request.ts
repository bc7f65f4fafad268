import type { GovernReport, GovernStepReport, ReportedMessage } from '@nanobot/governor';
import type { Message, TokenEstimator, ToolDefinition } from '@nanobot/schema';
import { createEstimator } from '@nanobot/schema';
import type {
  ActionSummary,
  InspectorSnapshot,
  Mark,
  MessageCounts,
  MessageSummary,
  RemovalReason,
  SectionView,
  TimelineRow,
} from '../shared/protocol.js';
import { ACTION_TEXT, markActionOf, markWhy, removalReasonOf, removalWhy } from './explain-governance.js';
import { toolsWarning } from './tools-warning.js';

/** What {@link inspectRequest} reads: one governed request and where it came from. */
export interface InspectInput {
  sessionKey: string;
  iteration: number;
  /** The stored transcript handed to the governor. Not mutated. */
  transcript: readonly Message[];
  /** The governor's output: the request actually sent. Not mutated. */
  governed: readonly Message[];
  report: GovernReport;
  tools: readonly ToolDefinition[];
  /** Index in `transcript` of the first message of the running turn's tool loop. */
  inflightStartIndex: number;
  /** System prompt sections as the context builder produced them (null: show the prompt whole). */
  sections: readonly { name: string; text: string }[] | null;
  /**
   * The estimator the governor counted with (`createEstimator({ tokenizer })` for the model's
   * tokenizer): every figure is then in the units of `report.budget`. Default: cl100k_base, the
   * governor's default without a model.
   */
  estimator?: TokenEstimator;
  /** Maps an offload location to a URL the page can open; must not throw. */
  artifactUrl?: (location: string) => string | undefined;
  /**
   * Switches that leave built-in tool groups out (the demo's `--no-exec`, `--no-web`), named in
   * the warning when the tool definitions take much of the budget.
   */
  toolSwitches?: readonly { flag: string; tools: readonly string[] }[];
  /** The MCP server a tool came from (undefined: a built-in). Must not throw. */
  mcpServerOf?: (toolName: string) => string | undefined;
  now?: () => Date;
}

const SUMMARY_CHARS = 160;

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : `[${String((part as { type?: unknown })?.type ?? 'part')}]`))
    .join(' ');
}

function clip(text: string, max = SUMMARY_CHARS): string {
  // Only the head is shown, so only the head is normalised (tool results can be megabytes).
  const flat = text.slice(0, max * 4).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function safeTokens(estimator: TokenEstimator, message: Message): number {
  try {
    return estimator.messageTokens(message);
  } catch {
    return 0;
  }
}

/** A short, display-ready description of one message (tokens by `estimator`, default cl100k_base). */
export function summarizeMessage(message: Message, estimator: TokenEstimator = createEstimator()): MessageSummary {
  const out: MessageSummary = { role: String(message.role), summary: '', tokens: safeTokens(estimator, message) };
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  let text = clip(textOf(message.content));
  if (calls.length > 0) {
    const names = calls.map((c) => `${c?.function?.name ?? '?'}(${clip(String(c?.function?.arguments ?? ''), 60)})`).join(', ');
    text = text ? `${text} → ${names}` : `→ ${names}`;
  }
  out.summary = text || '(empty)';
  if (typeof message.tool_call_id === 'string') out.toolCallId = message.tool_call_id;
  if (message.role === 'tool' && typeof message.name === 'string') out.toolName = message.name;
  return out;
}

interface Slot {
  /** Index in the transcript this message came from (kept, or replaced in place). */
  origin: number | null;
  marks: Mark[];
  role: string;
  toolCallId?: string;
}

interface Removal {
  origin: number;
  reason: RemovalReason;
  step: string;
  why: string;
}

function markFor(step: GovernStepReport, added: ReportedMessage, replaced: boolean, report: GovernReport, artifactUrl: InspectInput['artifactUrl']): Mark | null {
  const result = added.toolCallId === undefined ? undefined : step.toolResults.find((r) => r.toolCallId === added.toolCallId);
  const action = markActionOf(step, added, result, replaced);
  if (action === null) return null;
  const mark: Mark = { action, why: markWhy(step, added, result, report) };
  const details: string[] = [];
  const originalChars = result?.originalChars ?? added.originalChars;
  if (originalChars !== undefined) details.push(`${originalChars.toLocaleString('en-US')} chars originally`);
  if (result?.from) details.push(`was ${result.from}`);
  if (result?.error) details.push(result.error);
  const location = result?.location ?? added.location;
  if (location) {
    const url = artifactUrl?.(location);
    if (url) mark.artifactUrl = url;
    details.push(location);
  }
  if (details.length > 0) mark.detail = details.join(' · ');
  return mark;
}

/**
 * Replays the governor's report over the transcript to learn, for every message of the request,
 * where it came from and what governance did to it (and why), and for every transcript message
 * that was not sent, which step removed it (and why). Unchanged messages are matched by identity
 * (the governor returns the input objects for them), so the result stays right even if a step
 * reorders. Every transcript message ends up either sent or removed, exactly once.
 */
function trace(input: InspectInput): { slots: Slot[]; removals: Removal[] } {
  const { transcript, governed, report } = input;
  let slots: Slot[] = transcript.map((m, i) => ({ origin: i, marks: [], role: String(m.role), ...(typeof m.tool_call_id === 'string' ? { toolCallId: m.tool_call_id } : {}) }));
  let removals: Removal[] = [];
  for (const step of report.steps) {
    if (!step.changed) continue;
    const removedAt = new Map(step.removed.map((r) => [r.index, r]));
    const removedSlots = slots.map((slot, i) => ({ slot, ref: removedAt.get(i) })).filter((x) => x.ref !== undefined);
    const next = slots.filter((_, i) => !removedAt.has(i));
    const pool = [...removedSlots];
    for (const added of [...step.added].sort((a, b) => a.index - b.index)) {
      // A removal and an addition of the same role and call id in one step is a replacement
      // (offload, compaction, renaming, a merge): the message was sent, changed.
      const k = pool.findIndex((x) => x.slot.role === added.role && (x.slot.toolCallId ?? null) === (added.toolCallId ?? null));
      const replaced = k >= 0 ? pool.splice(k, 1)[0].slot : null;
      const mark = markFor(step, added, replaced !== null, report, input.artifactUrl);
      const slot: Slot = {
        origin: replaced ? replaced.origin : null,
        marks: [...(replaced?.marks ?? []), ...(mark ? [mark] : [])],
        role: added.role,
        ...(added.toolCallId !== undefined ? { toolCallId: added.toolCallId } : {}),
      };
      next.splice(Math.min(added.index, next.length), 0, slot);
    }
    for (const { slot, ref } of pool) {
      if (slot.origin !== null) removals.push({ origin: slot.origin, reason: removalReasonOf(step, ref), step: step.step, why: removalWhy(step, ref, report) });
    }
    // Results a step changed in place or moved without removing and re-adding them (a regroup).
    const addedIds = new Set(step.added.map((a) => a.toolCallId));
    for (const result of step.toolResults) {
      if (addedIds.has(result.toolCallId)) continue;
      const slot = [...next].reverse().find((x) => x.role === 'tool' && x.toolCallId === result.toolCallId);
      const mark = slot ? markFor(step, { index: -1, role: 'tool', toolCallId: result.toolCallId, name: result.name }, true, report, input.artifactUrl) : null;
      if (slot && mark) slot.marks = [...slot.marks, mark];
    }
    slots = next;
  }
  slots = matchGoverned(slots, transcript, governed);
  // Each transcript message is counted once: sent wins over a removal of the same message, and a
  // message the report accounts for nowhere (it never should) is shown as not sent, saying so.
  const sent = new Set(slots.map((s) => s.origin).filter((o): o is number => o !== null));
  const seen = new Set<number>();
  removals = removals.filter((r) => !sent.has(r.origin) && !seen.has(r.origin) && seen.add(r.origin));
  transcript.forEach((_, i) => {
    if (!sent.has(i) && !seen.has(i)) removals.push({ origin: i, reason: 'stripped', step: 'unknown', why: "Not sent; the governor's report does not say which step left it out." });
  });
  return { slots, removals };
}

/**
 * The replayed slots lined up with the messages really sent. Identity beats the replay (an
 * unchanged message is the transcript's own object); a new object takes the unused slot of its
 * role and call id, preferring the one at its position — so a step that reorders without
 * reporting removals (a regroup) cannot shift marks or origins onto the wrong message.
 */
function matchGoverned(slots: Slot[], transcript: readonly Message[], governed: readonly Message[]): Slot[] {
  const originOf = new Map<Message, number>();
  transcript.forEach((m, i) => originOf.set(m, i));
  const used = new Set<Slot>();
  const out: (Slot | null)[] = governed.map((m) => {
    const origin = originOf.get(m);
    if (origin === undefined) return null;
    const slot = slots.find((x) => x.origin === origin && !used.has(x));
    if (slot) used.add(slot);
    return { origin, marks: slot?.marks ?? [], role: String(m.role), ...(typeof m.tool_call_id === 'string' ? { toolCallId: m.tool_call_id } : {}) };
  });
  return governed.map((m, i) => {
    const known = out[i];
    if (known) return known;
    const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
    const fits = (x: Slot): boolean => !used.has(x) && x.role === String(m.role) && (x.toolCallId ?? null) === id && (x.origin === null || !originOf.has(governed[i]));
    const slot = (slots[i] && fits(slots[i]) ? slots[i] : undefined) ?? slots.find(fits);
    if (!slot) return { origin: null, marks: [], role: String(m.role), ...(id !== null ? { toolCallId: id } : {}) };
    used.add(slot);
    // An origin already sent as itself (identity) cannot be sent twice.
    const origin = slot.origin !== null && out.some((o) => o?.origin === slot.origin) ? null : slot.origin;
    return { ...slot, origin };
  });
}

function budgetZones(input: InspectInput): { systemEnd: number; currentStart: number } {
  const { governed, transcript } = input;
  const systemEnd = governed.length > 0 && governed[0].role === 'system' ? 1 : 0;
  const currentUser = input.inflightStartIndex > 0 ? transcript[input.inflightStartIndex - 1] : undefined;
  let currentStart = currentUser ? governed.indexOf(currentUser) : -1;
  if (currentStart < 0) {
    currentStart = governed.length;
    for (let i = governed.length - 1; i >= systemEnd; i--) {
      if (governed[i].role === 'user') {
        currentStart = i;
        break;
      }
    }
  }
  return { systemEnd, currentStart: Math.max(currentStart, systemEnd) };
}

function sectionViews(input: InspectInput, estimator: TokenEstimator): SectionView[] {
  const system = input.governed[0]?.role === 'system' ? textOf(input.governed[0].content) : '';
  const sections = input.sections && input.sections.length > 0 ? input.sections : system ? [{ name: 'system', text: system }] : [];
  // What the text adds as a system message's content, in the governor's tokenizer.
  const empty = safeTokens(estimator, { role: 'system', content: '' });
  return sections.map((s) => ({ name: s.name, text: s.text, tokens: Math.max(0, safeTokens(estimator, { role: 'system', content: s.text }) - empty) }));
}

/** `counts` in words: `32 of the 68 messages sent; 36 snipped; 1 backfilled`. Pure. */
export function countsText(counts: MessageCounts, actions: readonly ActionSummary[]): string {
  const parts = [`${counts.sent.toLocaleString('en-US')} of the ${counts.transcript.toLocaleString('en-US')} messages sent`];
  for (const [reason, count] of Object.entries(counts.removed)) if (count) parts.push(`${count.toLocaleString('en-US')} ${reason === 'orphan' ? 'orphan results dropped' : reason}`);
  const backfilled = actions.find((a) => a.action === 'backfilled')?.count ?? 0;
  const otherAdded = counts.added - backfilled;
  if (backfilled > 0) parts.push(`${backfilled.toLocaleString('en-US')} backfilled`);
  if (otherAdded > 0) parts.push(`${otherAdded.toLocaleString('en-US')} added`);
  return parts.join('; ');
}

/**
 * Turns one governed request into what the inspector draws: the system prompt by section, the
 * request timeline with governance marks and the messages removed (snipped, stripped, orphans)
 * shown where they were, each with the reason from the governor's report, the token budget split
 * into system / tools / history / current turn / headroom, a summary of the actions, and message
 * counts that add up. Pure: inputs are not mutated.
 */
export function inspectRequest(input: InspectInput): InspectorSnapshot {
  const { governed, transcript, report, tools } = input;
  const estimator = input.estimator ?? createEstimator();
  const { slots, removals } = trace(input);
  const { systemEnd, currentStart } = budgetZones(input);

  // Sent messages keep the request's order; each removed message goes in before the first sent
  // message that came after it in the transcript (a running maximum of origins, so a message
  // moved earlier by the governor cannot reorder the rest).
  const rows: TimelineRow[] = [];
  const sortedRemovals = [...removals].sort((a, b) => a.origin - b.origin);
  let next = 0;
  let anchor = -1;
  const pushRemoval = (removal: Removal): void => {
    const summary = summarizeMessage(transcript[removal.origin], estimator);
    const prev = rows[rows.length - 1];
    if (prev?.kind === 'removed' && prev.reason === removal.reason && prev.why === removal.why) prev.messages.push(summary);
    else rows.push({ kind: 'removed', reason: removal.reason, step: removal.step, why: removal.why, messages: [summary], tokens: 0 });
  };
  governed.forEach((message, index) => {
    const slot = slots[index];
    if (slot.origin !== null) anchor = Math.max(anchor, slot.origin);
    while (next < sortedRemovals.length && sortedRemovals[next].origin < anchor) pushRemoval(sortedRemovals[next++]);
    const zone = index < systemEnd ? 'system' : index >= currentStart ? 'current' : 'history';
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((c) => ({ id: String(c?.id ?? ''), name: String(c?.function?.name ?? '?') })) : [];
    rows.push({ kind: 'message', index, zone, marks: slot.marks, ...(slot.origin !== null ? { origin: slot.origin } : {}), ...summarizeMessage(message, estimator), ...(calls.length > 0 ? { toolCalls: calls } : {}) });
  });
  while (next < sortedRemovals.length) pushRemoval(sortedRemovals[next++]);
  const timeline = rows;
  for (const row of timeline) if (row.kind === 'removed') row.tokens = row.messages.reduce((n, m) => n + m.tokens, 0);

  let system = 0;
  let history = 0;
  let current = 0;
  for (const row of timeline) {
    if (row.kind !== 'message') continue;
    if (row.zone === 'system') system += row.tokens;
    else if (row.zone === 'history') history += row.tokens;
    else current += row.tokens;
  }
  const toolTokens = estimator.toolsTokens(tools);
  // The governor's own estimate of the request (what it sized against the budget): the parts
  // plus the request's overhead (the reply priming), so every figure on the page agrees with it.
  const used = safePromptTokens(estimator, governed, tools, system + history + current + toolTokens);
  const overhead = Math.max(0, used - (system + history + current + toolTokens));
  // The transcript in the same units: equal to `used` when nothing changed.
  const transcriptTokens = governed === transcript ? used : safePromptTokens(estimator, transcript, tools, used);
  const limit = report.budget;

  const counts = new Map<ActionSummary['action'], { count: number; step: string; whys: Set<string> }>();
  const bump = (action: ActionSummary['action'], step: string, why: string, n = 1): void => {
    const entry = counts.get(action) ?? { count: 0, step, whys: new Set<string>() };
    entry.count += n;
    entry.whys.add(why);
    counts.set(action, entry);
  };
  for (const row of timeline) {
    if (row.kind === 'removed') bump(row.reason, row.step, row.why, row.messages.length);
    else for (const mark of row.marks) bump(mark.action, '', mark.why);
  }
  const actions: ActionSummary[] = [...counts].map(([action, { count, step, whys }]) => ({
    action,
    count,
    step,
    text: ACTION_TEXT[action],
    why: whys.size === 1 ? [...whys][0] : `${[...whys][0]} (Each marked message below says why it was changed.)`,
  }));
  const removedBy: Partial<Record<RemovalReason, number>> = {};
  for (const r of removals) removedBy[r.reason] = (removedBy[r.reason] ?? 0) + 1;
  const sent = slots.filter((s) => s.origin !== null).length;
  const messageCounts: MessageCounts = { transcript: transcript.length, sent, removed: removedBy, added: governed.length - sent, request: governed.length };

  return {
    sessionKey: input.sessionKey,
    iteration: input.iteration,
    at: (input.now?.() ?? new Date()).toISOString(),
    sections: sectionViews(input, estimator),
    budget: {
      limit,
      system,
      tools: toolTokens,
      history,
      current,
      overhead,
      used,
      headroom: Math.max(0, limit - used),
      transcriptTokens,
      tokenizer: estimator.tokenizer,
      ...(report.tokensCalibrated !== undefined ? { tokensCalibrated: report.tokensCalibrated } : {}),
      ...(report.inputBudget !== undefined ? { inputBudget: report.inputBudget } : {}),
      toolsWarning: toolsWarning({
        tools,
        estimator,
        budget: limit,
        switches: input.toolSwitches ?? [],
        mcpServerOf: input.mcpServerOf ?? (() => undefined),
      }),
    },
    timeline,
    actions,
    counts: messageCounts,
    countsText: countsText(messageCounts, actions),
    toolNames: tools.map((t) => String((t as { function?: { name?: unknown } }).function?.name ?? (t as { name?: unknown }).name ?? '?')),
  };
}

function safePromptTokens(estimator: TokenEstimator, messages: readonly Message[], tools: readonly ToolDefinition[], fallback: number): number {
  try {
    return estimator.promptTokens(messages, tools)[0];
  } catch {
    return fallback;
  }
}
