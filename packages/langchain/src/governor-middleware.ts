import type { BaseMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { govern, type GovernOptions, type GovernReport } from '@nanobot/governor';
import { createMiddleware } from 'langchain';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { originOf, type MessageOrigin } from './internal/origin.js';
import { toGovernorView } from './internal/to-governor-messages.js';

/** Options of {@link governorMiddleware}. */
export interface GovernorMiddlewareOptions extends GovernOptions {
  /**
   * Called with each model call's report and governed messages, synchronously, before the
   * call; not awaited. It must not mutate the messages; if it throws, the model call fails.
   */
  onReport?: (report: GovernReport, messages: BaseMessage[]) => void;
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
 * window with the agent's system message and tools counted. The agent's state (the stored
 * history) is never changed: only the request the model sees. Throws `ValidationError` (from
 * `@nanobot/schema`) at creation for bad options.
 */
export function governorMiddleware(options: GovernorMiddlewareOptions = {}) {
  const { onReport, ...governOptions } = options;
  // Fail at creation, not on the first call, for options govern would refuse.
  govern([], governOptions);
  return createMiddleware({
    name: 'NanobotGovernor',
    wrapModelCall: (request, handler) => {
      const system = request.systemMessage;
      const hasSystem = system !== undefined && system.content !== '' && !(Array.isArray(system.content) && system.content.length === 0);
      const list = hasSystem ? [system, ...request.messages] : request.messages;
      const view = toGovernorView(list, 'governorMiddleware');
      const callOptions: GovernOptions = { ...governOptions };
      if (callOptions.tools === undefined) callOptions.tools = toolDefinitions(request.tools);
      const { messages: governed, report } = govern(view, callOptions);
      if (governed === view) {
        onReport?.(report, request.messages);
        return handler(request);
      }
      let messages = fromGovernorView(list, view, governed);
      // The system message goes back to its own field (the governor keeps instructions at the head).
      let systemMessage = system;
      if (hasSystem && messages[0]?.type === 'system' && (messages[0] === system || originSource(governed[0]) === system)) {
        systemMessage = messages[0] as typeof system;
        messages = messages.slice(1);
      }
      onReport?.(report, messages);
      return handler({ ...request, messages, systemMessage });
    },
  });
}
