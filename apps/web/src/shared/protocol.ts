// The wire contract between the demo server and the page. Types only (no runtime code), so the
// client bundle and the server compile against the same shapes without sharing any module.

/** One thing shown in the chat column. */
export type ChatItem =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string; interrupted?: boolean }
  | { kind: 'tool'; callId: string; name: string; args: string; status: 'running' | 'ok' | 'error' | 'interrupted'; detail: string }
  | { kind: 'notice'; text: string };

/** A governance action as the inspector marks it on a message. */
export type MarkAction =
  | 'backfilled'
  | 'offloaded'
  | 'truncated'
  | 'empty-marker'
  | 'offload-failed'
  | 'compacted'
  | 'recompacted'
  | 'renamed'
  | 'moved'
  | 'stripped-calls';

/** One mark on a sent message. */
export interface Mark {
  action: MarkAction;
  /** Human-readable specifics (original size, old id, …). */
  detail?: string;
  /** Where the server serves an offloaded result (same origin). */
  artifactUrl?: string;
}

/** Why messages of the stored transcript are missing from the request. */
export type RemovalReason = 'snipped' | 'stripped' | 'orphan';

/** A message of the transcript, summarised for display. */
export interface MessageSummary {
  role: string;
  summary: string;
  tokens: number;
  toolCallId?: string;
  toolName?: string;
}

/** One row of the request timeline. */
export type TimelineRow =
  | (MessageSummary & {
      kind: 'message';
      /** Position in the request actually sent. */
      index: number;
      zone: 'system' | 'history' | 'current';
      toolCalls?: { id: string; name: string }[];
      marks: Mark[];
    })
  | { kind: 'removed'; reason: RemovalReason; step: string; messages: MessageSummary[]; tokens: number };

/** One governance action of a request, summarised. */
export interface ActionSummary {
  action: MarkAction | RemovalReason;
  count: number;
  /** The governor step that did it. */
  step: string;
  text: string;
}

/** Token budget of one request (estimates in the governor's tokenizer for the model). */
export interface BudgetView {
  /** Input budget (0: no context window configured, nothing is snipped). */
  limit: number;
  system: number;
  tools: number;
  history: number;
  current: number;
  used: number;
  /** max(0, limit - used). */
  headroom: number;
  /** Tokens in the stored transcript before governance. */
  transcriptTokens: number;
  /** The tokenizer every figure is counted with (the model's, as the governor counted). */
  tokenizer: 'cl100k_base' | 'o200k_base' | 'claude';
  /** With a usage calibration: the billed count to expect for the request sent. */
  tokensCalibrated?: number;
  /** With a usage calibration: the input budget in billed tokens (`limit` is it in estimate units). */
  inputBudget?: number;
  /**
   * Set when the tool definitions alone take more than a quarter of the budget (they go with
   * every request and are never snipped): how much, and to list fewer with `enabledTools`.
   */
  toolsWarning: string | null;
}

/** A system prompt section (identity, bootstrap, tool contract, memory, skills, …). */
export interface SectionView {
  name: string;
  text: string;
  tokens: number;
}

/** Everything the inspector draws for one model request (one iteration). */
export interface InspectorSnapshot {
  sessionKey: string;
  iteration: number;
  at: string;
  sections: SectionView[];
  budget: BudgetView;
  timeline: TimelineRow[];
  actions: ActionSummary[];
  transcriptCount: number;
  requestCount: number;
  toolNames: string[];
}

/** A session as listed in the sidebar. */
export interface SessionListItem {
  key: string;
  title: string;
  messageCount: number;
  running: boolean;
}

/** A session as the page opens it. */
export interface SessionView {
  key: string;
  title: string;
  items: ChatItem[];
  running: boolean;
  inspector: InspectorSnapshot | null;
}

/** What the server says about itself. */
export interface ServerInfo {
  model: string;
  /** The registry name of the provider (`deepseek`), `offline`, or a test provider's name. */
  provider: string;
  offline: boolean;
  contextWindowTokens: number;
  /**
   * Where the window came from: `set` (flag or `NANOBOT_CONTEXT_WINDOW`), the provider's models
   * endpoint (`provider`, `cache`), the model table (`table`), or `default` (nothing knew it).
   */
  windowSource?: 'set' | 'provider' | 'cache' | 'table' | 'default';
}

/** Server-sent events on `/api/sessions/:key/events`; the SSE event name is `type`. */
export type StreamEvent =
  | { type: 'snapshot'; session: SessionView }
  | { type: 'turn_start' }
  | { type: 'user'; text: string }
  | { type: 'delta'; text: string }
  | { type: 'assistant'; text: string }
  | { type: 'tool_start'; callId: string; name: string; args: string }
  | { type: 'tool_end'; callId: string; name: string; status: 'ok' | 'error' | 'interrupted'; detail: string }
  | { type: 'inspector'; snapshot: InspectorSnapshot }
  | { type: 'notice'; text: string }
  | {
      type: 'turn_end';
      stopReason: string;
      finalContent: string | null;
      error: string | null;
      /**
       * The turn's tokens and, when the model's prices are known, its cost in USD; `lastRequest`:
       * the governor's estimate of the turn's last request, the calibrated count sizing used,
       * and the input tokens the provider billed (when it reported them).
       */
      bill?: { inputTokens: number; cachedTokens: number; outputTokens: number; cost?: number; lastRequest?: { estimated: number; calibrated: number; actual: number } };
    };

/** Body of every 4xx/5xx answer. */
export interface ErrorBody {
  error: { code: string; message: string };
}
