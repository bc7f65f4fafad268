import type { LLMResponse, Message, ToolCall, ToolDefinition } from '@nanobot/schema';
import type { Tool } from '@nanobot/tools-core';

/** What `beforeModel` sees: the governed copy about to be sent. Read-only. */
export interface BeforeModelContext {
  readonly runId: string;
  readonly iteration: number;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly sessionKey?: string;
}

/** What `afterModel` sees: the model's answer (malformed calls already removed). Read-only. */
export interface AfterModelContext {
  readonly runId: string;
  readonly iteration: number;
  readonly response: Readonly<LLMResponse>;
  readonly sessionKey?: string;
}

/** What `beforeTool` sees: a prepared (validated) call. Read-only. */
export interface BeforeToolContext {
  readonly runId: string;
  readonly iteration: number;
  readonly call: Readonly<ToolCall>;
  readonly tool: Tool<any>;
  readonly params: unknown;
  readonly sessionKey?: string;
}

/** What `afterTool` sees: the call's outcome before it is appended. Read-only. */
export interface AfterToolContext {
  readonly runId: string;
  readonly iteration: number;
  readonly call: Readonly<ToolCall>;
  readonly status: 'ok' | 'error';
  readonly content: Message['content'];
  readonly sessionKey?: string;
}

/** A replacement tool outcome returned by `beforeTool` (skip the call) or `afterTool` (rewrite it). */
export interface ToolOverride {
  content: string;
  isError?: boolean;
}

/**
 * Lifecycle hooks. The contract:
 * - Every hook is optional and **awaited**; hooks from several objects run in the order given.
 * - Hooks get read-only views. Mutating them is a programmer error (not defended at runtime, to
 *   keep the per-iteration overhead low); change behaviour through return values only.
 * - A hook that **throws** is isolated: the run goes on and a `hook_error` event is emitted —
 *   unless the hook object sets `critical: true`, in which case the error ends the run with stop
 *   reason `error` (the transcript stays legal).
 * - `beforeTool` may return a `ToolOverride` to skip the call (e.g. a permission denial); the
 *   override becomes the tool result. `afterTool` may return one to replace the result.
 * - `finalizeContent` is a pipeline: each hook receives the previous hook's output.
 * - Hooks run inside the turn: a slow hook slows the agent (unlike event sinks).
 */
export interface RunnerHooks {
  /** When true, exceptions from this object's hooks end the run instead of being reported. */
  readonly critical?: boolean;
  beforeModel?(ctx: BeforeModelContext): void | Promise<void>;
  afterModel?(ctx: AfterModelContext): void | Promise<void>;
  beforeTool?(ctx: BeforeToolContext): void | ToolOverride | Promise<void | ToolOverride>;
  afterTool?(ctx: AfterToolContext): void | ToolOverride | Promise<void | ToolOverride>;
  finalizeContent?(content: string): string | Promise<string>;
}
