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
  | 'stripped-calls'
  | 'rewritten'
  | 'merged';

/** One mark on a sent message. */
export interface Mark {
  action: MarkAction;
  /** Why the governor did it, in words from its report (never empty). */
  why: string;
  /** Specifics (original size, old id, where the full text is saved, …). */
  detail?: string;
  /** Where the server serves an offloaded result (same origin). */
  artifactUrl?: string;
}

/** Why messages of the stored transcript are missing from the request. */
export type RemovalReason = 'snipped' | 'stripped' | 'orphan' | 'dropped' | 'merged';

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
      /** Position in the transcript of the message this one was sent as (absent: the governor added it). */
      origin?: number;
      zone: 'system' | 'history' | 'current';
      toolCalls?: { id: string; name: string }[];
      marks: Mark[];
    })
  | {
      kind: 'removed';
      reason: RemovalReason;
      step: string;
      /** Why the governor left these out, in words from its report (never empty). */
      why: string;
      messages: MessageSummary[];
      tokens: number;
    };

/** One governance action of a request, summarised. */
export interface ActionSummary {
  action: MarkAction | RemovalReason;
  count: number;
  /** The governor step that did it. */
  step: string;
  /** What was done, short (`older history snipped to fit the budget`). */
  text: string;
  /** Why, in a sentence or two from the governor's report (never empty). */
  why: string;
}

/** How the request's messages relate to the transcript's: they always add up. */
export interface MessageCounts {
  /** Messages the governor was given (system prompt, history, current turn). */
  transcript: number;
  /** Of those, how many went out (unchanged or changed). */
  sent: number;
  /** Of those, how many were left out, by reason; `sent` plus these is `transcript`. */
  removed: Partial<Record<RemovalReason, number>>;
  /** Messages the governor added (backfilled results); `sent + added` is the request's size. */
  added: number;
  /** The request's size. */
  request: number;
}

/** Token budget of one request (estimates in the governor's tokenizer for the model). */
export interface BudgetView {
  /** Input budget (0: no context window configured, nothing is snipped). */
  limit: number;
  system: number;
  tools: number;
  history: number;
  current: number;
  /** What the request costs besides its messages and tools (the reply priming). */
  overhead: number;
  /** The governor's estimate of the request: system + tools + history + current + overhead. */
  used: number;
  /** max(0, limit - used). */
  headroom: number;
  /** The same estimate for the transcript as given to the governor (equals `used` when nothing changed). */
  transcriptTokens: number;
  /** The tokenizer every figure is counted with (the model's, as the governor counted). */
  tokenizer: 'cl100k_base' | 'o200k_base' | 'claude';
  /** With a usage calibration: the billed count to expect for the request sent. */
  tokensCalibrated?: number;
  /** With a usage calibration: the input budget in billed tokens (`limit` is it in estimate units). */
  inputBudget?: number;
  /**
   * Set when the tool definitions alone take more than a quarter of the budget (they go with
   * every request and are never snipped): how much, where it comes from (built-in tools, MCP
   * servers) and the fix for each (the demo's --no-exec/--no-web, `enabledTools`).
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
  counts: MessageCounts;
  /** `counts` in words: "32 of the 68 messages sent; 36 snipped; 1 backfilled". */
  countsText: string;
  toolNames: string[];
}

/** A session as listed in the sidebar. */
export interface SessionListItem {
  key: string;
  title: string;
  messageCount: number;
  running: boolean;
}

/** What a finished turn cost (see the `turn_end` event's `bill`). */
export interface TurnBill {
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  /** USD, when the model's prices are known. */
  cost?: number;
  /** The governor's estimate of the turn's last request, the calibrated count sizing used, and the input tokens the provider billed. */
  lastRequest?: { estimated: number; calibrated: number; actual: number };
}

/** A session as the page opens it. */
export interface SessionView {
  key: string;
  title: string;
  items: ChatItem[];
  running: boolean;
  inspector: InspectorSnapshot | null;
  /** The last turn's bill (this server run), so a reload shows the same figures. */
  bill: TurnBill | null;
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
      /** The turn's tokens and cost (see {@link TurnBill}). */
      bill?: TurnBill;
    };

/** Body of every 4xx/5xx answer. */
export interface ErrorBody {
  error: { code: string; message: string };
}
