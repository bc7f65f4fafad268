import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec, CallContext } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';

/** What the `spawn` tool asks a `SubagentSpawner` to start. */
export interface SpawnRequest {
  readonly task: string;
  /** Display label; the tool fills in the reference's default (first 30 chars of the task + `...`). */
  readonly label: string;
  readonly temperature?: number;
  /** Run inline and return the result, instead of announcing it later to the origin session. */
  readonly wait: boolean;
  /** Where the result must go back to: the call's own context, never tool state. */
  readonly origin: Omit<CallContext, 'signal'>;
  /** Aborted when the spawning call is cancelled (matters for `wait`). */
  readonly signal?: AbortSignal;
}

/** What a spawner reports back; the tool turns it into the model-visible text. */
export type SpawnOutcome =
  /** Background subagent started; its result will be announced to the origin session. */
  | { readonly kind: 'started'; readonly id: string }
  /** `wait` run finished; `isError` when the subagent failed. */
  | { readonly kind: 'completed'; readonly id: string; readonly result: string; readonly isError?: boolean }
  /** Too many subagents already running for this agent. */
  | { readonly kind: 'limit'; readonly running: number; readonly limit: number }
  /** No model runtime is available to run a subagent. */
  | { readonly kind: 'no_runtime' };

/**
 * Starts subagents for the `spawn` tool; implemented by the runner's `SubagentManager`.
 * `spawn` is awaited, may throw (the model reads `Error: <message>`), and receives a fresh
 * request object it may keep.
 */
export interface SubagentSpawner {
  spawn(request: SpawnRequest): Promise<SpawnOutcome>;
}

/** Arguments of `spawn`. */
export interface SpawnArgs {
  task: string;
  label?: string;
  temperature?: number;
  wait?: boolean;
}

/** The reference's default label: the first 30 characters of the task, plus `...` when cut. */
export function defaultSpawnLabel(task: string): string {
  const chars = [...task];
  return chars.length > 30 ? `${chars.slice(0, 30).join('')}...` : task;
}

/**
 * `spawn`: hand a task to a subagent through the injected `SubagentSpawner`. The origin
 * (session, channel, chat) comes from the call's context so results return to the right chat.
 */
export function createSpawnSpec(options: { spawner: SubagentSpawner }): BuiltinToolSpec<SpawnArgs> {
  return {
    name: 'spawn',
    description:
      'Start a subagent to work on a task in the background; its result is reported back to this conversation when it ' +
      'finishes. Set wait=true to run it now and get the result directly. Subagents cannot message the user or spawn.',
    parameters: {
      type: 'object',
      properties: {
        task: { type: 'string', description: 'Complete, self-contained instructions for the subagent' },
        label: { type: 'string', description: 'Short label for the task (for display)' },
        temperature: { type: 'number', description: 'Sampling temperature for the subagent (0-2)', minimum: 0, maximum: 2 },
        wait: { type: 'boolean', description: 'Wait for the result instead of running in the background (default false)' },
      },
      required: ['task'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core'],
    async run(args, ctx) {
      const task = typeof args.task === 'string' ? args.task.trim() : '';
      if (!task) return fail('Error: task must be a non-empty string');
      const label = args.label?.trim() || defaultSpawnLabel(task);
      let outcome: SpawnOutcome;
      try {
        outcome = await options.spawner.spawn({
          task,
          label,
          ...(args.temperature !== undefined ? { temperature: args.temperature } : {}),
          wait: args.wait === true,
          origin: {
            sessionKey: ctx.sessionKey,
            channel: ctx.channel,
            chatId: ctx.chatId,
            senderId: ctx.senderId,
            messageId: ctx.messageId,
            workspace: ctx.workspace,
          },
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
      } catch (error) {
        return fail(`Error: ${errorMessage(error)}`);
      }
      switch (outcome.kind) {
        case 'started':
          return ok(`Subagent [${label}] started (id: ${outcome.id}). I'll notify you when it completes.`);
        case 'completed':
          return outcome.isError ? fail(outcome.result) : ok(outcome.result);
        case 'limit':
          return fail(
            `Cannot spawn subagent: concurrency limit reached (${outcome.running}/${outcome.limit} running). ` +
              'Wait for a running subagent to complete before spawning a new one.',
          );
        case 'no_runtime':
          return fail('Error: spawn requires an active model runtime');
        default:
          return fail(`Error: unknown spawn outcome ${JSON.stringify(outcome)}`);
      }
    },
  };
}

/** The `spawn` tool, ready to register (see `createSpawnSpec` for its behaviour). */
export function createSpawnTool(options: { spawner: SubagentSpawner }): Tool<SpawnArgs> {
  return toTool(createSpawnSpec(options), { timeoutMs: 0 });
}
