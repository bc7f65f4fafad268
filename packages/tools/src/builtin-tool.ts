import type { JsonSchema } from '@nanobot/schema';
import type { SsrfBlockedError } from './ssrf-blocked-error.js';
import type { WorkspaceViolationError } from './workspace-violation-error.js';

/** Loader scopes a built-in joins: `core` main agent, `subagent`, `memory` (Dream). */
export type ToolScope = 'core' | 'subagent' | 'memory';

/** The per-call facts a built-in reads; a structural subset of tools-core's `ToolContext`. */
export interface CallContext {
  readonly sessionKey?: string;
  readonly channel?: string;
  readonly chatId?: string;
  readonly senderId?: string;
  readonly messageId?: string;
  readonly workspace?: string;
  readonly signal?: AbortSignal;
}

/** A boundary refusal carried on an error result for the runner's classification. */
export type BoundaryViolation = WorkspaceViolationError | SsrfBlockedError;

/** What a built-in's logic returns before it is wrapped as a tools-core result. */
export interface Outcome {
  readonly text: string;
  readonly isError: boolean;
  readonly violation?: BoundaryViolation;
}

/** A built-in tool's definition and logic, independent of the tools-core wrapper. */
export interface BuiltinToolSpec<A> {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly readOnly: boolean;
  readonly exclusive: boolean;
  readonly scopes: readonly ToolScope[];
  /** Never throws for model-side failures: they come back as `isError` outcomes. */
  run(args: A, ctx: CallContext): Promise<Outcome>;
}

/** A successful outcome. */
export function ok(text: string): Outcome {
  return { text, isError: false };
}

/** A failed outcome the model reads; `violation` marks workspace/SSRF refusals. */
export function fail(text: string, violation?: BoundaryViolation): Outcome {
  return violation ? { text, isError: true, violation } : { text, isError: true };
}

/** The message of any thrown value, for `Error: …` texts. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
