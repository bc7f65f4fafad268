// One playground run: a history read by readHistory, governed for a target, model and budget,
// and described for the page — the request that would be sent, the before/after of every
// message with the rule behind each change (the web demo's inspectRequest replaying the
// governor's report), and every provider target's legality verdict on the input and on the
// request. Pure and synchronous; it runs in the browser with the bundled governor (the page
// awaits `loadTokenizer` for the model's tokenizer first).
import { checkLegality, GOVERN_TARGETS, govern, inputBudget, withModelDefaults } from '@nanobot/governor';
import type { GovernOptions, GovernReport, GovernTarget, LegalityViolation, Message } from '@nanobot/governor';
import { anthropicToModel, governAnthropic } from '@nanobot/governor/anthropic';
import type { AnthropicMessageLike, AnthropicSystemLike } from '@nanobot/governor/anthropic';
import { governResponses, responsesToModel } from '@nanobot/governor/responses';
import type { ResponsesItemLike } from '@nanobot/governor/responses';
import { governModelMessages, modelMessagesToGovernor } from '@nanobot/ai-sdk';
import { createEstimator, lookupModel } from '@nanobot/schema';
import type { TokenizerName } from '@nanobot/schema';
import { inspectRequest } from '../server/inspect-request.js';
import type { ActionSummary, InspectorSnapshot, Mark, RemovalReason } from '../shared/protocol.js';
import { HISTORY_FORMATS, type HistoryFormat, type ReadHistory } from './read-history.js';

/** What the person chose besides the history. */
export interface PlaygroundSettings {
  target: GovernTarget;
  /** A model name (the model table gives its window, reply size and tokenizer). */
  model: string;
  /** The context window; default: the model table's. */
  contextWindowTokens?: number | null;
  /** The input budget in tokens (the governor's `contextBlockLimit`); default: computed from the window. */
  budget?: number | null;
}

/** One line of the before/after view: a message of the history, of the request, or both. */
export interface CompareRow {
  /** `kept`: sent as it was; `changed`: sent rewritten; `added`: made by the governor; `removed`: not sent. */
  status: 'kept' | 'changed' | 'added' | 'removed';
  role: string;
  summary: string;
  /** Tokens in the history (0 for an added message). */
  before: number;
  /** Tokens in the request (0 for a removed message). */
  after: number;
  /** Position in the request, for sent messages. */
  index?: number;
  /** Position in the governor's view of the history, for messages that came from it. */
  origin?: number;
  /** What the governor did and why, in words from its report (empty for a kept message). */
  changes: { action: Mark['action'] | RemovalReason; why: string; step?: string; detail?: string }[];
}

/** One provider target's verdict. */
export interface LegalityVerdict {
  target: GovernTarget;
  /** What that API would reject in the history as given. */
  before: LegalityViolation[];
  /** What it would reject in the governed request. */
  after: LegalityViolation[];
}

/** Everything the page draws for one run. */
export interface PlaygroundRun {
  format: HistoryFormat;
  formatLabel: string;
  target: GovernTarget;
  model: string;
  tokenizer: TokenizerName;
  contextWindowTokens: number;
  budget: number;
  /** The governor's view of the history (OpenAI chat shape): what the report's indices count. */
  view: Message[];
  /** The governed copy (`govern`'s output). */
  governed: Message[];
  report: GovernReport;
  snapshot: InspectorSnapshot;
  rows: CompareRow[];
  /** Kinds of change with counts and reasons (the inspector's action summary). */
  actions: ActionSummary[];
  /** The request that would be sent, and which call made it. */
  request: { via: string; body: unknown };
  legality: LegalityVerdict[];
}

/** The tokenizer the governor counts `model` with (the model table's; cl100k_base when unknown). */
export function tokenizerOfModel(model: string): TokenizerName {
  return lookupModel(model)?.tokenizer ?? 'cl100k_base';
}

/** The AI SDK's `ModelMessage` (the web demo does not depend on `ai` itself). */
type ModelMessage = Parameters<typeof governModelMessages>[0][number];

function viewOf(history: ReadHistory): Message[] {
  switch (history.format) {
    case 'openai':
      return history.items as Message[];
    case 'anthropic':
      return anthropicToModel(history.system as AnthropicSystemLike | undefined, history.items as AnthropicMessageLike[]);
    case 'responses':
      return responsesToModel(history.items as ResponsesItemLike[]);
    case 'ai-sdk':
      return modelMessagesToGovernor(history.items as ModelMessage[]);
  }
}

/**
 * The request in the history's own format where its dialect governs for the chosen target
 * (Anthropic → `'anthropic'`, Responses → `'responses'`, AI SDK → any), else govern's copy.
 */
function requestOf(history: ReadHistory, rest: Omit<GovernOptions, 'tools' | 'target'>, target: GovernTarget, governed: Message[]): { via: string; body: unknown } {
  if (history.format === 'anthropic' && target === 'anthropic') {
    const input = { messages: history.items as AnthropicMessageLike[], ...(history.system !== undefined ? { system: history.system as AnthropicSystemLike } : {}) };
    const governed = governAnthropic(input, rest);
    return { via: "governAnthropic (@nanobot/governor/anthropic): the Messages API's system and messages", body: { ...(governed.system !== undefined ? { system: governed.system } : {}), messages: governed.messages } };
  }
  if (history.format === 'responses' && target === 'responses') {
    return { via: 'governResponses (@nanobot/governor/responses): the Responses API input', body: { input: governResponses(history.items as ResponsesItemLike[], rest).input } };
  }
  if (history.format === 'ai-sdk') {
    return { via: 'governModelMessages (@nanobot/ai-sdk): the prompt for generateText / streamText', body: { messages: governModelMessages(history.items as ModelMessage[], { ...rest, target }).messages } };
  }
  return { via: `govern (@nanobot/governor): the messages, legal for ${target}`, body: { messages: governed } };
}

function rowsOf(snapshot: InspectorSnapshot, view: readonly Message[], estimator: ReturnType<typeof createEstimator>): CompareRow[] {
  const rows: CompareRow[] = [];
  const tokensOf = (m: Message): number => {
    try {
      return estimator.messageTokens(m);
    } catch {
      return 0;
    }
  };
  for (const row of snapshot.timeline) {
    if (row.kind === 'removed') {
      for (const m of row.messages) rows.push({ status: 'removed', role: m.role, summary: m.summary, before: m.tokens, after: 0, changes: [{ action: row.reason, why: row.why, step: row.step }] });
      continue;
    }
    const changes = row.marks.map((mark) => ({ action: mark.action, why: mark.why, ...(mark.detail !== undefined ? { detail: mark.detail } : {}) }));
    const origin = row.origin;
    const before = origin === undefined ? 0 : tokensOf(view[origin]);
    const status: CompareRow['status'] = origin === undefined ? 'added' : view[origin] === undefined || changes.length > 0 ? 'changed' : 'kept';
    rows.push({ status, role: row.role, summary: row.summary, before, after: row.tokens, index: row.index, ...(origin !== undefined ? { origin } : {}), changes });
  }
  return rows;
}

/**
 * Governs `history` with `settings` and describes the result (see {@link PlaygroundRun}).
 * Throws what the dialect conversions and `govern` throw (`ValidationError` for a history that
 * is not of its format, or bad settings); the page shows the message.
 */
export function runPlayground(history: ReadHistory, settings: PlaygroundSettings): PlaygroundRun {
  const view = viewOf(history);
  const model = settings.model;
  const tokenizer = tokenizerOfModel(model);
  const defaults = withModelDefaults({ model, ...(settings.contextWindowTokens ? { contextWindowTokens: settings.contextWindowTokens } : {}) });
  const contextWindowTokens = defaults.contextWindowTokens ?? 0;
  const options: Omit<GovernOptions, 'tools' | 'target'> = {
    model,
    ...(settings.contextWindowTokens ? { contextWindowTokens: settings.contextWindowTokens } : {}),
    ...(settings.budget ? { contextBlockLimit: settings.budget } : {}),
    estimateTokens: true,
  };
  const result = govern(view, { ...options, target: settings.target });
  const budget = result.report.budget || inputBudget({ ...defaults, ...(settings.budget ? { contextBlockLimit: settings.budget } : {}) });
  const estimator = createEstimator({ tokenizer });
  const snapshot = inspectRequest({ sessionKey: 'playground', iteration: 0, transcript: view, governed: result.messages, report: result.report, tools: [], inflightStartIndex: 0, sections: null, estimator });
  const legalityOptions = { model, ...(budget > 0 ? { budget } : {}) };
  const legality = GOVERN_TARGETS.map((target) => ({
    target,
    before: checkLegality(view, { ...legalityOptions, target }),
    after: checkLegality(result.messages, { ...legalityOptions, target }),
  }));
  return {
    format: history.format,
    formatLabel: HISTORY_FORMATS.find((f) => f.format === history.format)!.label,
    target: settings.target,
    model,
    tokenizer,
    contextWindowTokens,
    budget,
    view,
    governed: result.messages,
    report: result.report,
    snapshot,
    rows: rowsOf(snapshot, view, estimator),
    actions: snapshot.actions,
    request: requestOf(history, options, settings.target, result.messages),
    legality,
  };
}
