import type { GovernReport, GovernStepReport } from '@nanobot/governor';
import type { Message, TokenEstimator, ToolDefinition } from '@nanobot/schema';
import { createEstimator } from '@nanobot/schema';
import type {
  ActionSummary,
  InspectorSnapshot,
  Mark,
  MarkAction,
  MessageSummary,
  RemovalReason,
  SectionView,
  TimelineRow,
} from '../shared/protocol.js';

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
  now?: () => Date;
}

const SUMMARY_CHARS = 160;

// Which removal reason / mark each governor step stands for.
const REMOVAL_REASON: Partial<Record<string, RemovalReason>> = {
  stripPlaceholderAssistantMessages: 'stripped',
  stripMalformedToolCalls: 'stripped',
  dropOrphanToolResults: 'orphan',
  snipHistory: 'snipped',
};
const STEP_MARK: Partial<Record<string, MarkAction>> = {
  backfillMissingToolResults: 'backfilled',
  stripMalformedToolCalls: 'stripped-calls',
  repairToolCallIds: 'renamed',
  regroupToolResults: 'moved',
  compactInflightOverflow: 'compacted',
  microcompactKeepRecent: 'compacted',
};

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
}

function markFor(step: GovernStepReport, toolCallId: string | undefined, artifactUrl: InspectInput['artifactUrl']): Mark | null {
  const result = toolCallId === undefined ? undefined : step.toolResults.find((r) => r.toolCallId === toolCallId);
  if (result) {
    const mark: Mark = { action: result.action === 'moved' ? 'moved' : result.action };
    const details: string[] = [];
    if (result.originalChars !== undefined) details.push(`${result.originalChars.toLocaleString('en-US')} chars originally`);
    if (result.from) details.push(`was ${result.from}`);
    if (result.error) details.push(result.error);
    if (result.location) {
      const url = artifactUrl?.(result.location);
      if (url) mark.artifactUrl = url;
      details.push(result.location);
    }
    if (details.length > 0) mark.detail = details.join(' · ');
    return mark;
  }
  const action = STEP_MARK[step.step];
  return action ? { action } : null;
}

/**
 * Replays the governor's report over the transcript to learn, for every message of the request,
 * where it came from and what governance did to it, and for every transcript message that was
 * not sent, which step removed it. Unchanged messages are matched by identity (the governor
 * returns the input objects for them), so the result stays right even if a step reorders.
 */
function trace(input: InspectInput): { slots: Slot[]; removals: Removal[] } {
  const { transcript, governed, report } = input;
  let slots: Slot[] = transcript.map((m, i) => ({ origin: i, marks: [], role: String(m.role), ...(typeof m.tool_call_id === 'string' ? { toolCallId: m.tool_call_id } : {}) }));
  const removals: Removal[] = [];
  for (const step of report.steps) {
    if (!step.changed) continue;
    const removedAt = new Set(step.removed.map((r) => r.index));
    const removedSlots = slots.filter((_, i) => removedAt.has(i));
    const next = slots.filter((_, i) => !removedAt.has(i));
    const pool = [...removedSlots];
    for (const added of [...step.added].sort((a, b) => a.index - b.index)) {
      // A removal and an addition of the same role and call id in one step is a replacement
      // (offload, compaction, renaming): the message was sent, changed.
      const k = pool.findIndex((s) => s.role === added.role && (s.toolCallId ?? null) === (added.toolCallId ?? null));
      const replaced = k >= 0 ? pool.splice(k, 1)[0] : null;
      const mark = markFor(step, added.toolCallId, input.artifactUrl);
      const slot: Slot = {
        origin: replaced ? replaced.origin : null,
        marks: [...(replaced?.marks ?? []), ...(mark ? [mark] : [])],
        role: added.role,
        ...(added.toolCallId !== undefined ? { toolCallId: added.toolCallId } : {}),
      };
      next.splice(Math.min(added.index, next.length), 0, slot);
    }
    for (const gone of pool) {
      if (gone.origin !== null) removals.push({ origin: gone.origin, reason: REMOVAL_REASON[step.step] ?? 'stripped', step: step.step });
    }
    slots = next;
  }
  // Identity beats the replay: an unchanged message is the transcript's own object.
  const originOf = new Map<Message, number>();
  transcript.forEach((m, i) => originOf.set(m, i));
  if (slots.length !== governed.length) {
    slots = governed.map((m) => ({ origin: originOf.get(m) ?? null, marks: [], role: String(m.role) }));
  } else {
    slots = slots.map((s, i) => {
      const same = originOf.get(governed[i]);
      return same !== undefined ? { ...s, origin: same } : s;
    });
  }
  return { slots, removals };
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

const ACTION_TEXT: Record<ActionSummary['action'], string> = {
  snipped: 'older history snipped to fit the budget',
  stripped: 'placeholder or malformed messages stripped',
  orphan: 'orphan tool results dropped',
  backfilled: 'missing tool results backfilled',
  offloaded: 'oversized tool results offloaded to a file',
  truncated: 'oversized tool results truncated',
  'empty-marker': 'empty tool results marked',
  'offload-failed': 'offload failed (kept truncated)',
  compacted: 'in-flight tool results compacted',
  recompacted: 'earlier compactions re-applied',
  renamed: 'reused tool-call ids renamed',
  moved: 'displaced tool results moved next to their call',
  'stripped-calls': 'malformed tool calls stripped',
};

/**
 * Turns one governed request into what the inspector draws: the system prompt by section, the
 * request timeline with governance marks and the messages removed (snipped, stripped, orphans)
 * shown where they were, the token budget split into system / tools / history / current turn /
 * headroom, and a summary of the actions. Pure: inputs are not mutated.
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
    if (prev?.kind === 'removed' && prev.reason === removal.reason) prev.messages.push(summary);
    else rows.push({ kind: 'removed', reason: removal.reason, step: removal.step, messages: [summary], tokens: 0 });
  };
  governed.forEach((message, index) => {
    const slot = slots[index];
    if (slot.origin !== null) anchor = Math.max(anchor, slot.origin);
    while (next < sortedRemovals.length && sortedRemovals[next].origin < anchor) pushRemoval(sortedRemovals[next++]);
    const zone = index < systemEnd ? 'system' : index >= currentStart ? 'current' : 'history';
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((c) => ({ id: String(c?.id ?? ''), name: String(c?.function?.name ?? '?') })) : [];
    rows.push({ kind: 'message', index, zone, marks: slot.marks, ...summarizeMessage(message, estimator), ...(calls.length > 0 ? { toolCalls: calls } : {}) });
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
  const used = system + history + current + toolTokens;
  const limit = report.budget;

  const counts = new Map<ActionSummary['action'], { count: number; step: string }>();
  const bump = (action: ActionSummary['action'], step: string, n = 1): void => {
    const entry = counts.get(action) ?? { count: 0, step };
    entry.count += n;
    counts.set(action, entry);
  };
  for (const row of timeline) {
    if (row.kind === 'removed') bump(row.reason, row.step, row.messages.length);
    else for (const mark of row.marks) bump(mark.action, '');
  }
  const actions: ActionSummary[] = [...counts].map(([action, { count, step }]) => ({ action, count, step, text: ACTION_TEXT[action] }));

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
      used,
      headroom: Math.max(0, limit - used),
      transcriptTokens: report.tokensBefore ?? estimator.promptTokens(transcript, tools)[0],
      tokenizer: estimator.tokenizer,
      ...(report.tokensCalibrated !== undefined ? { tokensCalibrated: report.tokensCalibrated } : {}),
      ...(report.inputBudget !== undefined ? { inputBudget: report.inputBudget } : {}),
      toolsWarning:
        limit > 0 && toolTokens > limit / 4
          ? `The ${tools.length} tool definitions take ${toolTokens.toLocaleString('en-US')} tokens, ${Math.round((toolTokens / limit) * 100)}% of the budget, on every request: list only the tools you need with "enabledTools" in the MCP server's config, or use a larger context window.`
          : null,
    },
    timeline,
    actions,
    transcriptCount: transcript.length,
    requestCount: governed.length,
    toolNames: tools.map((t) => String((t as { function?: { name?: unknown } }).function?.name ?? (t as { name?: unknown }).name ?? '?')),
  };
}
