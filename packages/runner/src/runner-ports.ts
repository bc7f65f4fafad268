import type { Message } from '@nanobot/schema';
import type { ToolDefinition } from '@nanobot/schema';
import type { ToolRegistry } from '@nanobot/registry';

/**
 * What the runner needs from a tool registry: `ToolRegistry` from @nanobot/registry, or anything
 * with the same four methods (e.g. a filtered view for one session's disabled tools).
 */
export type RunnerToolRegistry = Pick<ToolRegistry, 'definitions' | 'get' | 'prepareCall' | 'execute'>;

/** Routing facts the runner puts on every tool call's `ToolContext`. */
export interface RunnerToolContext {
  sessionKey?: string;
  channel?: string;
  chatId?: string;
  senderId?: string;
  messageId?: string;
  workspace?: string;
  /** Free-form per-request data (model runtime, turn id, …) → `ctx.attributes`. */
  attributes?: Record<string, unknown>;
}

/** Options the runner passes to the governor on every request. */
export interface RunnerGovernOptions {
  contextWindowTokens?: number;
  maxOutputTokens?: number;
  contextBlockLimit?: number;
  maxToolResultChars: number;
  inflightStartIndex: number;
  compactedToolCallIds: Set<string>;
  tools: readonly ToolDefinition[];
  sessionKey?: string;
}

/**
 * The governor: returns a legal, budget-fitting copy of `messages` and a report. Must not mutate
 * `messages` (it may add ids to `options.compactedToolCallIds`, which is run-scoped state).
 * May throw: a throwing governor ends the run (rejects) with the transcript still legal.
 */
export type GovernFn = (
  messages: readonly Message[],
  options: RunnerGovernOptions,
) => { messages: readonly Message[]; report: unknown };
