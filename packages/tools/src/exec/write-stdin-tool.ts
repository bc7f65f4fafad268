import { pythonRepr } from '@nanobot/schema';
import type { Tool } from '@nanobot/tools-core';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';
import type { ExecSessionManager } from './exec-session-manager.js';
import { ExecSessionNotFoundError } from './exec-session-not-found-error.js';
import {
  clampSessionInt,
  DEFAULT_SESSION_OUTPUT,
  DEFAULT_WAIT_FOR_MS,
  DEFAULT_YIELD_MS,
  formatSessionPoll,
  MAX_SESSION_OUTPUT,
  MAX_WAIT_FOR_MS,
  MAX_YIELD_MS,
  MIN_SESSION_OUTPUT,
} from './format-session-poll.js';
import { toTool } from '../tool/to-tool.js';

/** Arguments of `write_stdin`. */
export interface WriteStdinArgs {
  session_id: string;
  chars?: string | null;
  close_stdin?: boolean;
  terminate?: boolean;
  yield_time_ms?: number;
  wait_for?: string | null;
  wait_timeout_ms?: number | null;
  max_output_chars?: number;
}

/**
 * `write_stdin`: poll, feed, close or terminate a background exec session of the caller's
 * session key, optionally waiting for a text in its output — the reference's parameters,
 * defaults, caps and messages. Another chat's session id reads as not found.
 */
export function createWriteStdinSpec(sessions: ExecSessionManager): BuiltinToolSpec<WriteStdinArgs> {
  return {
    name: 'write_stdin',
    description:
      'Interact with a running exec session created by exec with yield_time_ms. Use chars=\'\' to poll without ' +
      'writing, chars to send stdin, close_stdin=true to send EOF, or terminate=true to stop the process. Use ' +
      'wait_for with wait_timeout_ms for dev servers, test watchers, and prompts where you need to wait for expected ' +
      'output. Do not use this to start new commands; start them with exec.',
    parameters: {
      type: 'object',
      properties: {
        session_id: { type: 'string', description: 'Session id returned by exec when yield_time_ms is used.' },
        chars: {
          type: ['string', 'null'],
          description: 'Bytes/text to write to stdin. Omit or pass an empty string to only poll recent output.',
        },
        close_stdin: { type: 'boolean', description: 'Close stdin after writing chars. Useful for commands waiting for EOF.', default: false },
        terminate: { type: 'boolean', description: 'Terminate the running exec session.', default: false },
        yield_time_ms: {
          type: 'integer',
          description: `Milliseconds to wait before returning recent output (default ${DEFAULT_YIELD_MS}, max ${MAX_YIELD_MS}).`,
          minimum: 0,
          maximum: MAX_YIELD_MS,
        },
        wait_for: {
          type: ['string', 'null'],
          description: 'Optional text to wait for in output before returning. Useful for interactive commands and dev servers.',
        },
        wait_timeout_ms: {
          type: ['integer', 'null'],
          description: `Maximum milliseconds to wait for wait_for text (default ${DEFAULT_WAIT_FOR_MS}, max ${MAX_WAIT_FOR_MS}).`,
          minimum: 0,
          maximum: MAX_WAIT_FOR_MS,
        },
        max_output_chars: {
          type: 'integer',
          description: `Maximum output characters to return from this poll (default ${DEFAULT_SESSION_OUTPUT}, max ${MAX_SESSION_OUTPUT}).`,
          minimum: MIN_SESSION_OUTPUT,
          maximum: MAX_SESSION_OUTPUT,
        },
      },
      required: ['session_id'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const sessionId = typeof args.session_id === 'string' ? args.session_id : '';
      const waitFor = typeof args.wait_for === 'string' && args.wait_for !== '' ? args.wait_for : undefined;
      try {
        const poll = await sessions.write({
          sessionId,
          owner: ctx.sessionKey ?? '',
          ...(typeof args.chars === 'string' ? { chars: args.chars } : {}),
          closeStdin: args.close_stdin === true,
          terminate: args.terminate === true,
          yieldMs: clampSessionInt(args.yield_time_ms, DEFAULT_YIELD_MS, 0, MAX_YIELD_MS),
          maxOutputChars: clampSessionInt(args.max_output_chars, DEFAULT_SESSION_OUTPUT, MIN_SESSION_OUTPUT, MAX_SESSION_OUTPUT),
          ...(waitFor !== undefined ? { waitFor, waitTimeoutMs: clampSessionInt(args.wait_timeout_ms, DEFAULT_WAIT_FOR_MS, 0, MAX_WAIT_FOR_MS) } : {}),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        const text = formatSessionPoll(sessionId, poll, waitFor);
        return poll.timedOut ? fail(text) : ok(text);
      } catch (error) {
        if (error instanceof ExecSessionNotFoundError) return fail(`Error: exec session not found: ${pythonRepr(sessionId)}`);
        return fail(`Error writing to exec session: ${errorMessage(error)}`);
      }
    },
  };
}

/** The `write_stdin` tool over `sessions` (the manager the exec tool starts sessions in). */
export function createWriteStdinTool(sessions: ExecSessionManager): Tool<WriteStdinArgs> {
  // Bounded by its own caps (wait_timeout_ms ≤ 120 s), longer than the registry's default timeout.
  return toTool(createWriteStdinSpec(sessions), { timeoutMs: 0 });
}
