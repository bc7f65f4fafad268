import type { Tool } from '@nanobot/tools-core';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';
import type { ExecSessionManager } from './exec-session-manager.js';
import { toTool } from '../tool/to-tool.js';

/** `list_exec_sessions` takes no arguments. */
export type ListExecSessionsArgs = Record<string, never>;

/** Seconds as Python's `f"{x:.1f}"` prints them (`inf` for no deadline). Pure. */
function seconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : 'inf';
}

/**
 * `list_exec_sessions`: the caller's background exec sessions only, one line each with id,
 * state, elapsed, idle and remaining time, cwd and a command preview (the reference's format).
 */
export function createListExecSessionsSpec(sessions: ExecSessionManager): BuiltinToolSpec<ListExecSessionsArgs> {
  return {
    name: 'list_exec_sessions',
    description:
      'List active long-running exec sessions, including session_id, cwd, elapsed time, idle time, remaining ' +
      'timeout, and command preview. Use this to recover a session_id after context shifts before polling, writing ' +
      'stdin, or terminating with write_stdin.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    readOnly: true,
    exclusive: false,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(_args, ctx) {
      try {
        const infos = sessions.list(ctx.sessionKey ?? '');
        if (infos.length === 0) return ok('No active exec sessions.');
        const lines = infos.map((info) => {
          let command = info.command.split(/\s+/).filter(Boolean).join(' ');
          if (command.length > 120) command = `${command.slice(0, 119)}...`;
          const status = info.exitCode !== null ? 'exited' : 'running';
          return (
            `${info.sessionId} | ${status} | elapsed=${seconds(info.elapsedS)}s | idle=${seconds(info.idleS)}s ` +
            `| remaining=${seconds(info.remainingS)}s | cwd=${info.cwd} | ${command}`
          );
        });
        return ok(lines.join('\n'));
      } catch (error) {
        return fail(`Error listing exec sessions: ${errorMessage(error)}`);
      }
    },
  };
}

/** The `list_exec_sessions` tool over `sessions`. */
export function createListExecSessionsTool(sessions: ExecSessionManager): Tool<ListExecSessionsArgs> {
  return toTool(createListExecSessionsSpec(sessions));
}
