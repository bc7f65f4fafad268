/** Names of the steps {@link govern} runs, in order (some run twice). */
export type GovernStepName =
  | 'stripPlaceholderAssistantMessages'
  | 'stripMalformedToolCalls'
  | 'repairToolCallIds'
  | 'dropOrphanToolResults'
  | 'regroupToolResults'
  | 'backfillMissingToolResults'
  | 'applyToolResultBudget'
  | 'microcompactKeepRecent'
  | 'compactInflightOverflow'
  | 'snipHistory'
  // Run by the dialects (`@nanobot/governor/anthropic`, `/responses`) after the pipeline.
  | 'tidyEmptyContent'
  | 'enforceRoleAlternation';

/** A message a step removed or added, identified for display. */
export interface ReportedMessage {
  /** Position in the step's input (removed) or output (added). */
  index: number;
  role: string;
  toolCallId?: string;
  name?: string;
  /** First characters of a string content, for display. */
  preview?: string;
}

/** One tool result whose content a step changed. */
export interface ReportedToolResult {
  toolCallId: string;
  name: string;
  action: 'offloaded' | 'truncated' | 'empty-marker' | 'offload-failed' | 'compacted' | 'recompacted' | 'renamed' | 'moved';
  /** Where an offloaded result was saved. */
  location?: string;
  originalChars?: number;
  /** The id before renaming. */
  from?: string;
  error?: string;
}

/** What one step did. Plain JSON data. */
export interface GovernStepReport {
  step: GovernStepName;
  /** 1 for the first run of a step, 2 for the repeat after snipping. */
  pass: number;
  changed: boolean;
  messagesBefore: number;
  messagesAfter: number;
  /** Prompt estimates (present when the call had a budget or asked for estimates). */
  tokensBefore?: number;
  tokensAfter?: number;
  removed: ReportedMessage[];
  added: ReportedMessage[];
  toolResults: ReportedToolResult[];
  /** Free-text remarks, e.g. that snipping cut inside a tool loop. */
  notes?: string[];
}

/** What {@link govern} did to produce the model copy. Plain JSON data a UI can draw. */
export interface GovernReport {
  /** The input budget in tokens (0: compaction and snipping were off). */
  budget: number;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Ids compacted by this call (also added to `options.compactedToolCallIds`). */
  newlyCompactedToolCallIds: string[];
  steps: GovernStepReport[];
}
