import { codePointLength, toResponseFormat } from '@nanobot/schema';
import type { Message, MessageContent, ResponseFormat, ResponseFormatInput, StructuredOutputError } from '@nanobot/schema';
import type { CutPlan, Governor } from '@nanobot/governor';
import { RunSpans, defaultTracer } from '../runner-tracing.js';
import type { EventDispatcher } from '../event-dispatcher.js';
import type { AccumulatedUsage, RunnerEvent, StopReason, ToolEvent } from '../runner-events.js';
import type { AgentRunSpec } from '../run-spec.js';
import { contentText } from '../tool-outcome.js';
import { ReplayedHistory } from './replayed-history.js';
import type { SessionHistories } from './session-histories.js';

/** What one `AgentRunner` shares between its runs: the agent's Governor and its exact-count memory. */
export interface RunnerShared {
  /** One per agent: carries each session's cut plan and memos between requests (by session key). */
  readonly governor: Governor;
  /** Sessions whose first request was counted exactly (runs without a session count their own first). */
  readonly countedSessions: Set<string>;
  /** Each session's replayed history between its runs; null: every request governs a fresh replayed array. */
  readonly histories: SessionHistories | null;
}

/** A critical hook's failure: ends the run (rejects) with a legal transcript. */
export class HookFailure extends Error {
  constructor(
    readonly hook: string,
    readonly original: unknown,
  ) {
    super(`hook ${hook} failed: ${describeError(original)}`);
  }
}

/** `Name: message` of an error, or the thrown value as text. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** `text` on one line, at most `max` code points. */
export function flattenDetail(text: string, max: number): string {
  const flat = text.replace(/[\r\n]+/g, ' ').trim();
  return codePointLength(flat) > max ? Array.from(flat).slice(0, max).join('') : flat;
}

/** The one-line detail of a successful tool result (120 code points, then `...`). */
export function successDetail(content: MessageContent): string {
  const flat = contentText(content).replace(/[\r\n]+/g, ' ').trim();
  if (flat === '') return '(empty)';
  const chars = Array.from(flat);
  return chars.length > 120 ? `${chars.slice(0, 120).join('')}...` : flat;
}

function emptyUsage(): AccumulatedUsage {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 0, contextTokens: 0 };
}

/** Mutable state of one run; lives only inside `AgentRunner.run()`. */
export class RunState {
  readonly transcript: Message[];
  readonly usage = emptyUsage();
  readonly toolEvents: ToolEvent[] = [];
  readonly toolsUsed: string[] = [];
  readonly lookupCounts = new Map<string, number>();
  readonly violationCounts = new Map<string, number>();
  /** Tool results compacted in this run (the governor's `compactedToolCallIds`: run-scoped). */
  readonly compactedToolCallIds = new Set<string>();
  /** The history cut plan of a run without a session key (with one, the agent's Governor keeps it). */
  cutPlan: CutPlan | null = null;
  readonly lengthSegments: string[] = [];
  emptyRetries = 0;
  injectionCycles = 0;
  /** An exact count failed in this run: the estimate serves for the rest of it. */
  exactCountFailed = false;
  /** The window and reply reserve the governor sizes with (the spec's, or the model's facts). */
  windowTokens: number | undefined;
  replyTokens: number | undefined;
  /** Tool-call ids present in the transcript (built on first use). */
  usedCallIds: Set<string> | null = null;
  hadInjections = false;
  iteration = 0;
  finalContent: string | null = null;
  stopReason: StopReason = 'completed';
  error: string | null = null;
  readonly outputFormat: ResponseFormat | undefined;
  output: unknown = undefined;
  outputError: StructuredOutputError | undefined;
  readonly spans: RunSpans | null;
  /** The model asked for: the spec's, else the provider's default. */
  readonly model: string;
  #replayed: ReplayedHistory | null = null;
  #appended = 0;

  constructor(
    readonly spec: AgentRunSpec,
    readonly runId: string,
    readonly events: EventDispatcher,
    readonly signal: AbortSignal,
    readonly shared: RunnerShared,
  ) {
    this.transcript = [...spec.initialMessages];
    this.windowTokens = spec.contextWindowTokens;
    this.replyTokens = spec.maxTokens;
    this.model = spec.model ?? spec.provider.defaultModel;
    this.outputFormat = spec.output === undefined ? undefined : 'type' in spec.output && spec.output.type === 'json_schema' ? spec.output : toResponseFormat(spec.output as ResponseFormatInput);
    const tracer = spec.tracer === false ? null : (spec.tracer ?? defaultTracer());
    this.spans = tracer === null ? null : new RunSpans(tracer, { runId, sessionKey: spec.sessionKey, provider: spec.provider.name, model: this.model });
  }

  emit(event: RunnerEvent): void {
    if (!this.events.empty) this.events.emit(event);
  }

  base(): { runId: string; sessionKey?: string } {
    return this.spec.sessionKey === undefined ? { runId: this.runId } : { runId: this.runId, sessionKey: this.spec.sessionKey };
  }

  /** Rows `append` added to the transcript (the one way the runner changes it during a run). */
  get appended(): number {
    return this.#appended;
  }

  append(message: Message): void {
    this.#appended += 1;
    this.transcript.push(message);
    this.emit({ ...this.base(), type: 'message_appended', message, index: this.transcript.length - 1 });
  }

  /**
   * The replayed transcript as a history the agent's Governor owns, in step with the transcript
   * (see ReplayedHistory): the session's kept one on first use, else a new one. Null when the
   * runner governs arrays (`ownedHistories: false`).
   */
  replayedHistory(): ReplayedHistory | null {
    const { histories, governor } = this.shared;
    if (histories === null) return null;
    if (this.#replayed === null) {
      const key = this.spec.sessionKey;
      this.#replayed = (key !== undefined ? histories.take(key) : undefined) ?? new ReplayedHistory(governor);
    }
    return this.#replayed;
  }

  /** Hands the run's replayed history back to its session (at the run's end), for the next run. */
  releaseHistory(): void {
    const key = this.spec.sessionKey;
    if (this.#replayed !== null && key !== undefined) this.shared.histories?.keep(key, this.#replayed);
    this.#replayed = null;
  }

  /** Whether the transcript ends with an assistant answer (not a tool-call turn). */
  endsWithPlainAssistant(): boolean {
    const last = this.transcript[this.transcript.length - 1];
    return last !== undefined && last.role === 'assistant' && !(last.tool_calls && last.tool_calls.length > 0);
  }
}
