import { BACKFILL_CONTENT, govern, withModelDefaults } from '@nanobot/governor';
import type { ArtifactStore, GovernReport, GovernStepName, GovernStepReport, ReportedMessage, ReportedToolResult, ModelOptions, ReplyReserveSource, TokenCalibration } from '@nanobot/governor';
import { createEstimator, failureReplayRow, isFailureNote } from '@nanobot/schema';
import type { Message, TokenEstimator, TokenizerName, ToolDefinition, ToolTraitsByName } from '@nanobot/schema';
import { toolsBudgetWarning } from './tools-budget-warning.js';

/** What happened to one message on its way to the model. */
export type TimelineMark =
  | 'stripped'
  | 'backfilled'
  | 'offloaded'
  | 'truncated'
  | 'compacted'
  | 'snipped'
  | 'moved'
  | 'renamed'
  | 'changed'
  | 'in-flight'
  | 'not-replayed'
  | 'consolidated';

/** One row of the timeline: a message of the governed input, or one the governor added. */
export interface TimelineEntry {
  /** Position in the governed input (0 is the system prompt); null for a message not in it. */
  index: number | null;
  /** Position in the stored session file's messages (absent for the system prompt and additions). */
  storedIndex?: number;
  role: string;
  /** Tool name of a result, or the tools an assistant message calls. */
  name?: string;
  toolCallId?: string;
  preview: string;
  /** Estimated tokens of what is sent (of the original when the message is not sent). */
  tokens: number;
  /** Estimated tokens of the original message, when the governor changed it. */
  originalTokens?: number;
  sent: boolean;
  marks: TimelineMark[];
  /** Why, in words (one entry per mark). */
  details: string[];
}

/** The whole inspection: plain JSON (what `nanobot inspect --json` prints). */
export interface SessionInspection {
  session: { key: string; storedMessages: number; replayedMessages: number; consolidatedMessages: number };
  systemPrompt: { tokens: number; sections: { name: string; tokens: number; chars: number; preview: string }[] };
  tools: { count: number; tokens: number };
  budget: {
    contextWindowTokens: number;
    /** The tokens the governor kept for the reply (its `report.replyReserve`): the number `run` governs with. */
    maxOutputTokens: number;
    /** Where that reserve came from (`report.replyReserve.source`): the configured maxTokens, the model table, or the window. */
    replyReserveSource: ReplyReserveSource | null;
    /** Input budget the governor enforces (0: off); with a calibration, in estimate units (see `inputBudget`). */
    budget: number;
    /** The model the request is governed for (null: the offline model, unknown to the model table). */
    model: string | null;
    /** The tokenizer every count here uses (the model's, from the model table; default cl100k_base). */
    tokenizer: TokenizerName;
    tokensBefore: number;
    /** The estimate of the request sent (what the governor sized). */
    tokensAfter: number;
    /** With a usage calibration and a model: the raw estimate (= `tokensAfter`). */
    tokensEstimated?: number;
    /** With a usage calibration and a model: the billed count to expect (equals the estimate until the model was observed). */
    tokensCalibrated?: number;
    /** With a usage calibration and a model: the input budget in billed tokens (window − reply − safety). */
    inputBudget?: number;
    /** The governed request fits the budget. Never true when `windowTooSmall`. */
    fits: boolean;
    /** The window is not larger than the reply reserve plus the safety margin: there is no input budget at all. */
    windowTooSmall: boolean;
  };
  /**
   * Set when the tool definitions alone take more than a quarter of the input budget (they are
   * sent with every request and never snipped): what they cost and what to do about it.
   */
  toolsWarning: string | null;
  timeline: TimelineEntry[];
  counts: Partial<Record<TimelineMark, number>>;
  /** Steps that changed something, from the governor's report. */
  steps: GovernStepReport[];
}

/** Inputs of {@link inspectSession}. */
export interface InspectSessionInput {
  key: string;
  /** Every stored message of the session. */
  storedMessages: readonly Message[];
  /** What the loop replays (`session.getHistory()`). */
  history: readonly Message[];
  lastConsolidated: number;
  /** The system prompt's sections in order; joined by `separator` they are the system message. */
  sections: readonly { name: string; text: string }[];
  separator: string;
  tools: readonly ToolDefinition[];
  /** The tools' declared traits, as the runner passes them (`registry.toolTraits()`); without them no tool is compactable. */
  toolTraits?: ToolTraitsByName;
  contextWindowTokens: number;
  maxOutputTokens?: number;
  maxToolResultChars?: number;
  /** The model `run` would send to (window defaults and tokenizer from the model table). */
  model?: string;
  /** The usage calibration `run` would size with (from `usage-calibration.json`). */
  calibrator?: TokenCalibration | null;
  /** Where an oversized result would be offloaded; use an in-memory store so nothing is written. */
  artifactStore: ArtifactStore;
  /** The MCP server a tool came from (undefined: built-in); default: none. Must not throw. */
  mcpServerOf?: (toolName: string) => string | undefined;
  /** The config file named in the tools warning's fixes (default `.nanobot/config.json`). */
  configPath?: string;
}

const STEP_MARK: Partial<Record<GovernStepName, { mark: TimelineMark; why: string }>> = {
  stripPlaceholderAssistantMessages: { mark: 'stripped', why: 'a placeholder reply ("[Previous assistant message omitted.]") is not sent' },
  stripMalformedToolCalls: { mark: 'stripped', why: 'tool call(s) without a usable name or id were removed' },
  dropOrphanToolResults: { mark: 'stripped', why: 'orphan tool result: no assistant call asks for it' },
  snipHistory: { mark: 'snipped', why: 'older history cut to fit the budget' },
  compactInflightOverflow: { mark: 'compacted', why: 'replaced by a short marker to fit the budget' },
  shortenNewestResults: { mark: 'truncated', why: 'a result the model waits on, shortened to fit (head and tail kept) rather than cut' },
  applyToolResultBudget: { mark: 'changed', why: 'tool result reshaped' },
  backfillMissingToolResults: { mark: 'backfilled', why: 'added: the call had no result (interrupted or lost)' },
  repairToolCallIds: { mark: 'renamed', why: 'tool-call id repaired' },
  regroupToolResults: { mark: 'moved', why: 'result moved next to its call' },
  microcompactKeepRecent: { mark: 'compacted', why: 'older compactable result replaced by a marker' },
};

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && typeof p === 'object' ? (p.type === 'text' ? p.text : `[${p.type}]`) : '')).join(' ');
}

function preview(message: Message): string {
  const flat = textOf(message.content).replace(/\s+/g, ' ').trim();
  return flat.length > 70 ? `${flat.slice(0, 69)}…` : flat;
}

function callNames(message: Message): string | undefined {
  if (message.role !== 'assistant' || !Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return undefined;
  return message.tool_calls.map((c) => c?.function?.name || '(unnamed)').join(', ');
}

function resultIdOf(message: Message): string | undefined {
  return message.role === 'tool' && typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
}

function sameRef(ref: ReportedMessage, message: Message): boolean {
  if (ref.role !== message.role) return false;
  const id = resultIdOf(message);
  if (ref.toolCallId !== undefined && ref.toolCallId !== id) return false;
  if (ref.preview !== undefined && typeof message.content === 'string' && !message.content.startsWith(ref.preview)) return false;
  return true;
}

function safeTokens(estimator: TokenEstimator, message: Message): number {
  try {
    return estimator.messageTokens(message);
  } catch {
    return 0;
  }
}

/** Tokens a text adds as a system message's content, in the estimator's tokenizer. */
function textTokens(estimator: TokenEstimator, text: string): number {
  return Math.max(0, safeTokens(estimator, { role: 'system', content: text }) - safeTokens(estimator, { role: 'system', content: '' }));
}

function resultDetail(r: ReportedToolResult): { mark: TimelineMark; why: string } {
  switch (r.action) {
    case 'offloaded':
      return { mark: 'offloaded', why: `${r.originalChars ?? '?'} chars saved to ${r.location ?? 'the artifact store'}; the model gets a preview and the path` };
    case 'truncated':
      return { mark: 'truncated', why: `${r.originalChars ?? '?'} chars cut to the per-result limit` };
    case 'offload-failed':
      return { mark: 'truncated', why: `offload failed (${r.error ?? 'unknown'}); truncated instead` };
    case 'empty-marker':
      return { mark: 'changed', why: 'empty result replaced by a "(no output)" marker' };
    case 'compacted':
    case 'recompacted':
      return { mark: 'compacted', why: 'in-flight result replaced by a short marker to fit the budget' };
    case 'renamed':
      return { mark: 'renamed', why: `tool-call id ${r.from ?? ''} was reused; renamed to ${r.toolCallId}` };
    case 'moved':
      return { mark: 'moved', why: 'result moved right after its call' };
  }
}

/** The governor's safety margin between the input budget and the window (reference `_SNIP_SAFETY_BUFFER`). */
const SAFETY_TOKENS = 1024;

/**
 * Runs the governor on a session's replayed history exactly as the loop's next request would be
 * built (system prompt, history, the latest turn counted as in flight, the same budget and tool
 * definitions) and explains the difference: for every message, whether it is sent and what was
 * stripped, backfilled, offloaded, truncated, compacted or snipped, with token estimates against
 * the budget. Pure apart from the artifact store it is given; inputs are not modified.
 */
/** Stands in for the user's next message while a stored session is inspected (never shown). */
const NEXT_MESSAGE_PLACEHOLDER = '(the next message)';

export function inspectSession(input: InspectSessionInput): SessionInspection {
  const systemPrompt = input.sections.map((s) => s.text).join(input.separator);
  const messages: Message[] = [{ role: 'system', content: systemPrompt }, ...input.history];
  let lastUser = -1;
  for (let i = messages.length - 1; i > 0; i--) {
    if (messages[i].role === 'user') {
      lastUser = i;
      break;
    }
  }
  // A finished turn (it ends with an answer that calls no tool) is history for the next request:
  // only an unfinished one (a tool loop that was cut off) is still in flight.
  const last = messages[messages.length - 1];
  const finished = messages.length > 1 && last.role === 'assistant' && !(Array.isArray(last.tool_calls) && last.tool_calls.length > 0);
  const inflightStartIndex = finished ? messages.length + 1 : lastUser >= 0 ? lastUser + 1 : messages.length;
  // Options exactly as the runner passes them for `run` (no cut plan: a new process has none yet).
  const modelOptions: ModelOptions = withModelDefaults<ModelOptions>({
    ...(input.model !== undefined ? { model: input.model } : {}),
    contextWindowTokens: input.contextWindowTokens,
    ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
  });
  const tokenizer: TokenizerName = modelOptions.tokenizer ?? 'cl100k_base';
  // The governor's own estimator (govern picks the same for this tokenizer): every count below agrees with its sizing.
  const estimator = createEstimator({ tokenizer });
  // The loop's next request ends with the user's next message: without one the governor would
  // treat a stored answer as a trailing assistant turn and drop it, which no real request does.
  const next: Message = { role: 'user', content: NEXT_MESSAGE_PLACEHOLDER };
  // A turn closed by a failure note (interrupted, failed request) is answered history too.
  const endsWithAnswer = messages.length > 1 && (messages[messages.length - 1].role === 'assistant' || isFailureNote(messages[messages.length - 1]));
  const governed = govern(endsWithAnswer ? [...messages, next] : messages, {
    contextWindowTokens: input.contextWindowTokens,
    ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...(input.calibrator ? { calibrator: input.calibrator } : {}),
    estimator,
    maxToolResultChars: input.maxToolResultChars ?? 16_000,
    inflightStartIndex,
    compactedToolCallIds: new Set<string>(),
    tools: input.tools,
    ...(input.toolTraits ? { toolTraits: input.toolTraits } : {}),
    artifactStore: input.artifactStore,
    sessionKey: input.key,
    estimateTokens: true,
  });
  const report = governed.report;
  // The reserve the governor sized with (the caller's maxTokens, the model table's or the
  // window-scaled default): what `run` reserves too, since it governs with the same options.
  const maxOutputTokens = report.replyReserve?.tokens ?? modelOptions.maxOutputTokens ?? 0;
  const sent = governed.messages.filter((m) => m !== next);
  const replayedFrom = matchReplayed(input.storedMessages, input.history);
  const timeline = withStoredOnly(buildTimeline(messages, sent, report, inflightStartIndex, estimator), input, replayedFrom, estimator);
  const counts: Partial<Record<TimelineMark, number>> = {};
  for (const entry of timeline) for (const mark of entry.marks) counts[mark] = (counts[mark] ?? 0) + 1;
  const toolTokens = estimator.toolsTokens(input.tools);
  const tokensBefore = report.tokensBefore ?? estimator.promptTokens(messages, input.tools)[0];
  const tokensAfter = report.tokensAfter ?? estimator.promptTokens(sent, input.tools)[0];
  const windowTooSmall = input.contextWindowTokens > 0 && input.contextWindowTokens - maxOutputTokens - SAFETY_TOKENS <= 0;
  const toolsWarning = toolsBudgetWarning({
    tools: input.tools,
    estimator,
    budget: report.budget,
    mcpServerOf: input.mcpServerOf ?? (() => undefined),
    configPath: input.configPath ?? '.nanobot/config.json',
  });
  return {
    session: {
      key: input.key,
      storedMessages: input.storedMessages.length,
      replayedMessages: input.history.length,
      consolidatedMessages: input.lastConsolidated,
    },
    systemPrompt: {
      tokens: safeTokens(estimator, messages[0]),
      sections: input.sections.map((s) => ({
        name: s.name,
        tokens: textTokens(estimator, s.text),
        chars: s.text.length,
        preview: s.text.replace(/\s+/g, ' ').trim().slice(0, 60),
      })),
    },
    tools: { count: input.tools.length, tokens: toolTokens },
    budget: {
      contextWindowTokens: input.contextWindowTokens,
      maxOutputTokens,
      replyReserveSource: report.replyReserve?.source ?? null,
      budget: report.budget,
      model: input.model ?? null,
      tokenizer,
      tokensBefore,
      tokensAfter,
      ...(report.tokensEstimated !== undefined ? { tokensEstimated: report.tokensEstimated } : {}),
      ...(report.tokensCalibrated !== undefined ? { tokensCalibrated: report.tokensCalibrated } : {}),
      ...(report.inputBudget !== undefined ? { inputBudget: report.inputBudget } : {}),
      fits: !windowTooSmall && (report.budget === 0 || tokensAfter <= report.budget),
      windowTooSmall,
    },
    toolsWarning,
    timeline,
    counts,
    steps: report.steps.filter((s) => s.changed),
  };
}

function buildTimeline(input: readonly Message[], sent: readonly Message[], report: GovernReport, inflightStart: number, estimator: TokenEstimator): TimelineEntry[] {
  const sentSet = new Set(sent);
  const inputSet = new Set(input);
  // What the steps did to tool results, by call id (a result can be offloaded and later compacted).
  const byId = new Map<string, ReportedToolResult[]>();
  for (const step of report.steps) {
    for (const r of step.toolResults) {
      const list = byId.get(r.toolCallId) ?? [];
      list.push(r);
      byId.set(r.toolCallId, list);
      if (r.from) byId.set(r.from, list);
    }
  }
  // Messages of the output that are not input objects: replacements or additions.
  const fresh = sent.filter((m) => !inputSet.has(m));
  const paired = new Set<Message>();
  const removals = report.steps.flatMap((step) => step.removed.map((ref) => ({ step, ref, used: false })));

  const entries: { entry: TimelineEntry; at: number }[] = [];
  input.forEach((message, index) => {
    const base: TimelineEntry = {
      index,
      role: String(message.role),
      preview: preview(message),
      tokens: safeTokens(estimator, message),
      sent: true,
      marks: [],
      details: [],
    };
    const names = callNames(message);
    if (names) base.name = names;
    else if (typeof message.name === 'string') base.name = message.name;
    const id = resultIdOf(message);
    if (id !== undefined) base.toolCallId = id;
    if (index >= inflightStart && index > 0) {
      base.marks.push('in-flight');
      base.details.push('part of the latest turn (compactable when over budget)');
    }
    const results = id !== undefined ? byId.get(id) ?? [] : [];
    for (const r of results) {
      const d = resultDetail(r);
      if (!base.marks.includes(d.mark) || d.mark === 'changed') {
        base.marks.push(d.mark);
        base.details.push(d.why);
      }
    }
    if (sentSet.has(message)) {
      entries.push({ entry: base, at: sent.indexOf(message) });
      return;
    }
    // A replacement: same tool-call id (possibly renamed), or the same role in the place of a
    // message a step removed and re-added (e.g. an assistant whose malformed calls were cut).
    const renamed = results.find((r) => r.action === 'renamed');
    const replacement = fresh.find(
      (m) => !paired.has(m) && m.role === message.role && id !== undefined && (resultIdOf(m) === id || (renamed && resultIdOf(m) === renamed.toolCallId)),
    );
    const removal = removals.find((r) => !r.used && sameRef(r.ref, message));
    if (removal) removal.used = true;
    const readded =
      !replacement && removal && removal.step.added.some((a) => a.role === message.role && a.index === removal.ref.index)
        ? fresh.find((m) => !paired.has(m) && m.role === message.role && sent.indexOf(m) >= 0 && !(resultIdOf(m) !== undefined && byId.has(resultIdOf(m)!)))
        : undefined;
    const substitute = replacement ?? readded;
    if (substitute) {
      paired.add(substitute);
      base.originalTokens = base.tokens;
      base.tokens = safeTokens(estimator, substitute);
      base.preview = preview(substitute) || base.preview;
      if (readded && removal) {
        const d = STEP_MARK[removal.step.step];
        base.marks.push(d?.mark ?? 'changed');
        base.details.push(d?.why ?? `changed by ${removal.step.step}`);
      }
      if (results.length === 0 && !readded) {
        base.marks.push('changed');
        base.details.push('changed on the way to the model');
      }
      entries.push({ entry: base, at: sent.indexOf(substitute) });
      return;
    }
    base.sent = false;
    const d = removal ? STEP_MARK[removal.step.step] : undefined;
    base.marks.push(d?.mark ?? 'stripped');
    base.details.push(d?.why ?? 'not sent');
    entries.push({ entry: base, at: -1 });
  });
  // Additions (backfilled results and the like), placed where they are sent.
  for (const m of fresh) {
    if (paired.has(m)) continue;
    const id = resultIdOf(m);
    const backfilled = m.role === 'tool' && textOf(m.content) === BACKFILL_CONTENT;
    entries.push({
      entry: {
        index: null,
        role: String(m.role),
        ...(typeof m.name === 'string' ? { name: m.name } : {}),
        ...(id !== undefined ? { toolCallId: id } : {}),
        preview: preview(m),
        tokens: safeTokens(estimator, m),
        sent: true,
        marks: [backfilled ? 'backfilled' : 'changed'],
        details: [backfilled ? 'added: the call had no result (interrupted or lost)' : 'added by the governor'],
      },
      at: sent.indexOf(m),
    });
  }
  // Order: as sent; messages that are not sent stay next to their original neighbours.
  const ordered: TimelineEntry[] = [];
  const sentEntries = entries.filter((e) => e.at >= 0).sort((a, b) => a.at - b.at);
  const dropped = entries.filter((e) => e.at < 0);
  let d = 0;
  for (const e of sentEntries) {
    const anchor = e.entry.index;
    while (d < dropped.length && anchor !== null && (dropped[d].entry.index ?? 0) < anchor) ordered.push(dropped[d++].entry);
    ordered.push(e.entry);
  }
  while (d < dropped.length) ordered.push(dropped[d++].entry);
  return ordered;
}

function sameRow(stored: Message, row: Message): boolean {
  // A stored failure replays as its note (another role, another text): match it by that note.
  const failure = failureReplayRow(stored);
  if (failure !== null) return failure.role === row.role && resultIdOf(failure) === resultIdOf(row) && textOf(failure.content) === textOf(row.content);
  if (stored.role !== row.role) return false;
  if (resultIdOf(stored) !== resultIdOf(row)) return false;
  const ids = (m: Message) => (Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => c?.id).join(',') : '');
  if (ids(stored) !== ids(row)) return false;
  const a = textOf(stored.content);
  const b = textOf(row.content).slice(0, 40);
  return b === '' || a.includes(b);
}

/** For each replayed row, the index of the stored message it was projected from (-1: unknown). */
function matchReplayed(stored: readonly Message[], history: readonly Message[]): number[] {
  const out: number[] = [];
  let j = 0;
  for (const row of history) {
    let k = j;
    while (k < stored.length && !sameRow(stored[k], row)) k++;
    if (k < stored.length) {
      out.push(k);
      j = k + 1;
    } else out.push(-1);
  }
  return out;
}

/** Adds the stored messages history replay leaves out, with the reason, in stored order. */
function withStoredOnly(timeline: TimelineEntry[], input: InspectSessionInput, replayedFrom: readonly number[], estimator: TokenEstimator): TimelineEntry[] {
  for (const entry of timeline) {
    if (entry.index !== null && entry.index > 0 && replayedFrom[entry.index - 1] >= 0) entry.storedIndex = replayedFrom[entry.index - 1];
  }
  const replayed = new Set(replayedFrom);
  const first = replayedFrom.find((i) => i >= 0) ?? input.storedMessages.length;
  let lastOrphan = -1;
  for (let i = 0; i < first; i++) {
    const m = input.storedMessages[i];
    if (m.role === 'tool') {
      const id = resultIdOf(m);
      const declared = input.storedMessages.slice(0, i).some((p) => Array.isArray(p.tool_calls) && p.tool_calls.some((c) => c?.id === id));
      if (!declared) lastOrphan = i;
    }
  }
  const extra: TimelineEntry[] = [];
  input.storedMessages.forEach((m, i) => {
    if (replayed.has(i)) return;
    let mark: TimelineMark = 'not-replayed';
    let why: string;
    if (i < input.lastConsolidated) {
      mark = 'consolidated';
      why = 'consolidated into memory/history.jsonl (the system prompt may carry its summary)';
    } else if (m._command) why = 'a slash-command row: never replayed';
    else if (m.role === 'assistant' && textOf(m.content).trim() === '' && !(Array.isArray(m.tool_calls) && m.tool_calls.length > 0)) why = 'an empty assistant row: never replayed';
    else if (i < first && lastOrphan >= i) why = `history replay starts after the orphan tool result at stored #${lastOrphan}: everything before it is left out`;
    else if (i < first) why = 'before the point where history replay starts (a user turn)';
    else why = 'not replayed';
    const names = callNames(m);
    const id = resultIdOf(m);
    extra.push({
      index: null,
      storedIndex: i,
      role: String(m.role),
      ...(names ? { name: names } : typeof m.name === 'string' ? { name: m.name } : {}),
      ...(id !== undefined ? { toolCallId: id } : {}),
      preview: preview(m),
      tokens: safeTokens(estimator, m),
      sent: false,
      marks: [mark],
      details: [why],
    });
  });
  if (extra.length === 0) return timeline;
  const out = [...timeline];
  for (const e of extra) {
    // Before the first entry stored after it (after the system prompt at least).
    let at = out.findIndex((x) => x.storedIndex !== undefined && x.storedIndex > e.storedIndex!);
    if (at < 0) at = out.length;
    out.splice(Math.max(at, 1), 0, e);
  }
  return out;
}
