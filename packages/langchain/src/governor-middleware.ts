import type { BaseMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createGovernor, type GovernOptions, type GovernReport, type Governor } from '@nanobot/governor';
import { dialectMemoOf } from '@nanobot/governor/dialect';
import { ValidationError } from '@nanobot/schema';
import { createMiddleware } from 'langchain';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { originOf, type MessageOrigin } from './internal/origin.js';
import { toGovernorView, type PreviousView } from './internal/to-governor-messages.js';
import { governorTargetForChatModel } from './governor-target-for.js';

/** What {@link GovernorMiddlewareOptions.sessionKey} is given to name a model call's conversation. */
export interface GovernedModelRequest {
  messages: BaseMessage[];
  runtime?: { configurable?: { thread_id?: unknown; [key: string]: unknown } } | undefined;
}

/** Options of {@link governorMiddleware}. */
export interface GovernorMiddlewareOptions extends Omit<GovernOptions, 'sessionKey'> {
  /**
   * Which conversation a model call belongs to (its cut plan, compacted ids and memos are kept per
   * conversation): a fixed key, or a function of the request (called synchronously; must not
   * throw or mutate it). Default: the run's `configurable.thread_id` when there is one, else the
   * conversation is recognised by its opening messages. The key also names the offload bucket.
   */
  sessionKey?: string | ((request: GovernedModelRequest) => string | undefined) | null;
  /**
   * Called with each model call's report and governed messages, synchronously, before the
   * call; not awaited. It must not mutate the messages; if it throws, the model call fails.
   */
  onReport?: (report: GovernReport, messages: BaseMessage[]) => void;
  /** The Governor to use (shared with your own calls); default: one of this middleware's own. */
  governor?: Governor;
}

function toolDefinitions(tools: readonly unknown[]): object[] | null {
  if (tools.length === 0) return null;
  const out: object[] = [];
  for (const t of tools) {
    try {
      out.push(convertToOpenAITool(t as Parameters<typeof convertToOpenAITool>[0]));
    } catch {
      // A provider-side tool without a schema of ours: counted as its own JSON.
      out.push(t as object);
    }
  }
  return out;
}

function originSource(message: unknown): unknown {
  return originOf<MessageOrigin>(message)?.source;
}

/**
 * A `createAgent` middleware whose `wrapModelCall` hook runs the governor on the messages of
 * every model call: each call gets a legal copy that, with `contextWindowTokens`, fits the
 * window with the agent's system message and tools counted. It keeps a Governor, so each
 * conversation's cut plan and compacted ids carry from call to call (stable cuts: the
 * provider's prompt cache keeps hitting). The agent's state (the stored history) is never
 * changed: only the request the model sees. Without `target`, each call is made legal for the
 * chat model's API, inferred from its class ({@link governorTargetForChatModel}). Throws `ValidationError` (from `@nanobot/schema`)
 * at creation for bad options.
 */
export function governorMiddleware(options: GovernorMiddlewareOptions = {}) {
  const { onReport, sessionKey, governor: given, ...governOptions } = options;
  if (sessionKey !== undefined && sessionKey !== null && typeof sessionKey !== 'string' && typeof sessionKey !== 'function') {
    throw new ValidationError('governorMiddleware: options.sessionKey must be a string or a function of the request', ['sessionKey']);
  }
  // Fails at creation, not on the first call, for options govern would refuse.
  const governor = given ?? createGovernor(governOptions);
  if (given !== undefined) governor.govern([], governOptions);
  const memo = dialectMemoOf(governor);
  // The last call's messages and view (this middleware's own): the next call's messages equal to
  // them, rebuilt or not (a checkpointer reload makes new objects), reuse its converted messages.
  let previous: PreviousView | undefined;
  return createMiddleware({
    name: 'NanobotGovernor',
    wrapModelCall: (request, handler) => {
      const system = request.systemMessage;
      const hasSystem = system !== undefined && system.content !== '' && !(Array.isArray(system.content) && system.content.length === 0);
      const list = hasSystem ? [system, ...request.messages] : request.messages;
      const view = toGovernorView(list, 'governorMiddleware', memo, previous);
      // A snapshot, not the array: callers may push to their array between calls.
      previous = { source: list.slice(), view };
      const callOptions: GovernOptions = { ...governOptions };
      // Without a target, the chat model's class names the API the prompt goes to.
      if (callOptions.target === undefined) {
        const inferred = governorTargetForChatModel((request as { model?: unknown }).model);
        if (inferred !== undefined) callOptions.target = inferred;
      }
      if (callOptions.tools === undefined) callOptions.tools = toolDefinitions(request.tools);
      const thread = (request as GovernedModelRequest).runtime?.configurable?.thread_id;
      const key = typeof sessionKey === 'function' ? sessionKey(request as GovernedModelRequest) : sessionKey ?? (typeof thread === 'string' && thread.length > 0 ? thread : undefined);
      if (key !== undefined && key !== null) callOptions.sessionKey = key;
      const { messages: governed, report } = governor.govern(view, callOptions);
      if (governed === view) {
        onReport?.(report, request.messages);
        return handler(request);
      }
      let messages = fromGovernorView(list, view, governed, memo);
      // The system message goes back to its own field (the governor keeps instructions at the head).
      let systemMessage = system;
      if (hasSystem && messages[0]?.type === 'system' && (messages[0] === system || originSource(governed[0]) === originSource(view[0]))) {
        systemMessage = messages[0] as typeof system;
        messages = messages.slice(1);
      }
      onReport?.(report, messages);
      return handler({ ...request, messages, systemMessage });
    },
  });
}
