import { ConfigurationError } from '@nanobot/schema';
import type { Tool } from '@nanobot/tools-core';
import type { SandboxProbe } from '../sandbox/probe-bubblewrap.js';
import type { Sandbox, SandboxMode } from '../sandbox/sandbox.js';
import { selectSandbox, type SandboxChoice } from '../sandbox/select-sandbox.js';
import { toTool } from '../tool/to-tool.js';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { constants as osConstants, homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';
import type { ExecSessionManager } from './exec-session-manager.js';
import { clampSessionInt, DEFAULT_YIELD_MS, formatSessionPoll, MAX_YIELD_MS } from './format-session-poll.js';
import { checkCommandPolicy, extractCommandUrls, EXEC_BOUNDARY_NOTE } from './exec-guard.js';
import { isInside, realpathAllowMissing } from '../workspace/resolve-workspace-path.js';
import { runCommand, type CapturedStream } from './run-command.js';
import { SsrfBlockedError } from '../web/ssrf-blocked-error.js';
import { isBlockedAddress, vetUrl, type SsrfPolicy } from '../web/ssrf-guard.js';
import { truncateMiddle } from './truncate-middle.js';
import { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `exec`. */
export interface ExecArgs {
  command: string;
  working_dir?: string;
  timeout?: number;
  max_output_chars?: number;
  /** Start as a background session and return after this many milliseconds (needs `sessions`). */
  yield_time_ms?: number | null;
}

/** Options of `createExecTool`. */
export interface ExecOptions extends WorkspaceOptions {
  /** Seconds when the call gives none (default 60; may exceed 600; 0 = no limit). */
  timeout?: number;
  /** Output budget in characters when the call gives none (default 10 000). */
  maxOutputChars?: number;
  /** Extra deny patterns (regex sources), checked before the built-in list. */
  denyPatterns?: readonly string[];
  /** Allow patterns: fully matching commands skip the deny list, others are refused. */
  allowPatterns?: readonly string[];
  /** Environment variables passed through besides HOME, LANG, TERM (default `['PATH']`). */
  allowedEnvKeys?: readonly string[];
  /** Shell argv prefix (default `/bin/bash -c`, or `/bin/sh -c` without bash). */
  shell?: readonly string[];
  /** SSRF policy for URLs inside commands (whitelist, loopback, lookup). */
  ssrf?: SsrfPolicy;
  /** Leave background jobs running after the command returns (default false; a sandbox always ends them). */
  keepBackgroundJobs?: boolean;
  /**
   * Where commands run: `auto` (default) bubblewrap when it works here, else unboxed with a
   * warning; `required` bubblewrap or a thrown `SandboxUnavailableError`; `none` unboxed (with
   * the warning); or a `Sandbox` of your own.
   */
  sandbox?: SandboxMode | Sandbox;
  /** Replaces the bubblewrap probe for `auto`/`required` (tests, other platforms); called once per tool. */
  sandboxProbe?: SandboxProbe;
  /** Give sandboxed commands the host network (default false). */
  allowNetwork?: boolean;
  /** Extra host paths visible in the sandbox; only with `restrictToWorkspace: false` (else a `ConfigurationError`). */
  sandboxPaths?: { readonly readOnly?: readonly string[]; readonly readWrite?: readonly string[] };
  /** Processes one sandboxed call may run at once where a pids cgroup can be made (default 512). */
  pidsLimit?: number;
  /**
   * Run the guard's path checks (`..`, absolute paths outside the workspace) — default only
   * without a sandbox: inside one the mount namespace is the boundary and those checks only
   * refuse harmless commands such as `ls /usr/bin`. The deny list always runs.
   */
  pathGuard?: boolean;
  /**
   * Told once per session when commands run without a sandbox; without it the warning is appended
   * to that session's first exec result instead. Should not throw (a throw is ignored); not awaited.
   */
  onWarning?: (message: string, sessionKey: string) => void;
  /**
   * Where `yield_time_ms` starts background sessions (shared with `write_stdin` and
   * `list_exec_sessions`; one per agent). Without it exec has no `yield_time_ms` parameter.
   */
  sessions?: ExecSessionManager;
}

/** Which sandbox an exec tool with these options uses (probing once), for banners and listings. */
export function execSandboxStatus(options: Pick<ExecOptions, 'sandbox' | 'sandboxProbe' | 'allowNetwork'> = {}): {
  readonly mode: SandboxMode | 'custom';
  readonly active: string;
  readonly warning?: string;
} {
  if (typeof options.sandbox === 'object') return { mode: 'custom', active: options.sandbox.name };
  try {
    const choice = selectSandbox(options.sandbox ?? 'auto', options.sandboxProbe ? { probe: options.sandboxProbe } : {});
    return { mode: choice.mode, active: choice.sandbox.name, ...(choice.warning ? { warning: choice.warning } : {}) };
  } catch (error) {
    return { mode: 'required', active: 'unavailable', warning: errorMessage(error) };
  }
}

const MAX_CALL_TIMEOUT = 600;

function defaultShell(): string[] {
  return existsSync('/bin/bash') ? ['/bin/bash', '-c'] : ['/bin/sh', '-c'];
}

function streamText(s: CapturedStream): { text: string; omitted: number } {
  return { text: s.head + s.tail, omitted: s.omitted };
}

/**
 * `exec`: run a shell command in the workspace with a timeout, an output budget and a
 * process-group kill, behind the reference's guard (deny/allow lists, private URLs, paths
 * outside the workspace). On Linux commands run under bubblewrap (see `sandbox`): the guard alone
 * is a heuristic. Throws `ConfigurationError` for `sandboxPaths` on a confined tool; a call
 * throws `SandboxUnavailableError` when `sandbox: 'required'` finds no sandbox.
 */
export function createExecSpec(options: ExecOptions = {}): BuiltinToolSpec<ExecArgs> {
  const configTimeout = options.timeout ?? 60;
  const defaultBudget = options.maxOutputChars ?? 10_000;
  const widened = (options.sandboxPaths?.readOnly?.length ?? 0) + (options.sandboxPaths?.readWrite?.length ?? 0) > 0;
  if (widened && (options.restrictToWorkspace ?? true)) {
    throw new ConfigurationError('exec: sandboxPaths widen the sandbox and need restrictToWorkspace: false');
  }
  let choice: SandboxChoice | undefined;
  // Chosen on first use: the probe spawns, and a tool that is never called should not pay for it.
  const sandboxChoice = (): SandboxChoice => {
    if (choice) return choice;
    if (typeof options.sandbox === 'object') choice = { mode: 'auto', sandbox: options.sandbox };
    else {
      choice = selectSandbox(options.sandbox ?? 'auto', {
        ...(options.sandboxProbe ? { probe: options.sandboxProbe } : {}),
        ...(options.allowNetwork ? { allowNetwork: true } : {}),
        ...(options.pidsLimit !== undefined ? { pidsLimit: options.pidsLimit } : {}),
        ...(options.sandboxPaths?.readOnly ? { readOnlyPaths: options.sandboxPaths.readOnly } : {}),
        ...(options.sandboxPaths?.readWrite ? { readWritePaths: options.sandboxPaths.readWrite } : {}),
      });
    }
    return choice;
  };
  const warned = new Set<string>();
  return {
    name: 'exec',
    description:
      'Run a shell command in the workspace and return stdout, stderr and the exit code. Long output is cut in the ' +
      'middle. Prefer the file tools for reading and editing files.' +
      (options.sessions
        ? ' For long-running or interactive commands, pass yield_time_ms; if the command keeps running, exec returns a ' +
          'session_id that can be polled or written to with write_stdin.'
        : ''),
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The shell command to run' },
        working_dir: { type: 'string', description: 'Working directory (default: the workspace)' },
        timeout: {
          type: 'integer',
          description: `Timeout in seconds; raise it for builds or installs (default ${configTimeout}, max ${MAX_CALL_TIMEOUT})`,
          minimum: 1,
          maximum: MAX_CALL_TIMEOUT,
        },
        max_output_chars: {
          type: 'integer',
          description: `Output budget in characters (default ${defaultBudget})`,
          minimum: 1000,
          maximum: 50000,
        },
        ...(options.sessions
          ? {
              yield_time_ms: {
                type: ['integer', 'null'],
                description:
                  'Optional milliseconds to wait before returning output. When set, a still-running command returns a ' +
                  'session_id that can be polled or written to with write_stdin. Omit this field to keep one-shot exec behavior.',
                minimum: 0,
                maximum: MAX_YIELD_MS,
              },
            }
          : {}),
      },
      required: ['command'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: true,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const command = typeof args.command === 'string' ? args.command : '';
      if (!command.trim()) return fail('Error: command must be a non-empty string');
      // A 'required' sandbox that is missing is a misconfigured stack: thrown, not shown to the model.
      const { sandbox, warning } = sandboxChoice();
      const scope = scopeFor(options, ctx.workspace);
      const workspace = scope?.root ?? process.cwd();
      const restrict = scope?.restrict ?? false;

      let cwd = workspace;
      if (args.working_dir) {
        const wd = args.working_dir.startsWith('~') ? homedir() + args.working_dir.slice(1) : args.working_dir;
        cwd = isAbsolute(wd) ? resolve(wd) : resolve(workspace, wd);
        if (restrict) {
          const [realCwd, realWs] = await Promise.all([realpathAllowMissing(cwd), realpathAllowMissing(workspace)]);
          if (!isInside(realCwd, realWs)) {
            const message = `working_dir is outside the configured workspace. ${EXEC_BOUNDARY_NOTE}`;
            return fail(`Error: ${message}`, new WorkspaceViolationError(args.working_dir, workspace, message));
          }
        }
      }
      try {
        if (!(await stat(cwd)).isDirectory()) return fail(`Error: working_dir is not a directory: ${args.working_dir}`);
      } catch {
        return fail(`Error: working_dir does not exist: ${args.working_dir ?? cwd}`);
      }

      const verdict = checkCommandPolicy(command, {
        denyPatterns: options.denyPatterns,
        allowPatterns: options.allowPatterns,
        restrictToWorkspace: restrict && (options.pathGuard ?? !sandbox.isolated),
        workspace,
        cwd,
        extraDirs: scope?.extraReadDirs,
      });
      if (!verdict.ok && (verdict.kind === 'deny' || verdict.kind === 'allowlist')) return fail(verdict.message);

      // Step 2 of the reference's order: URLs resolving to private networks.
      for (const url of extractCommandUrls(command)) {
        let blockedAt: string | undefined;
        try {
          await vetUrl(url, options.ssrf ?? {});
        } catch (error) {
          if (error instanceof SsrfBlockedError) blockedAt = error.address ?? url;
        }
        if (blockedAt === undefined) {
          try {
            const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
            if (host && /^[\d.:a-f]+$/i.test(host) && isBlockedAddress(host, options.ssrf ?? {})) blockedAt = host;
          } catch {
            // Unparseable URL text: nothing to resolve.
          }
        }
        if (blockedAt !== undefined) {
          const message = 'Command blocked by safety guard (internal/private URL detected)';
          return fail(`Error: ${message}`, new SsrfBlockedError(message, url, blockedAt));
        }
      }
      if (!verdict.ok) {
        const message = verdict.message.replace(/^Error: /, '');
        return fail(verdict.message, new WorkspaceViolationError(verdict.path ?? command, workspace, message));
      }

      const perCall = args.timeout !== undefined ? Math.min(Math.max(1, Math.floor(args.timeout)), MAX_CALL_TIMEOUT) : undefined;
      const timeoutSeconds = perCall ?? configTimeout;
      const budget = Math.min(50_000, Math.max(1000, Math.floor(args.max_output_chars ?? defaultBudget)));
      const env: Record<string, string> = {
        HOME: process.env.HOME ?? homedir(),
        LANG: process.env.LANG ?? 'C.UTF-8',
        TERM: process.env.TERM ?? 'dumb',
        PYTHONUNBUFFERED: '1',
      };
      for (const key of options.allowedEnvKeys ?? ['PATH']) {
        const value = process.env[key];
        if (value !== undefined) env[key] = value;
      }
      let note = '';
      const session = ctx.sessionKey ?? '';
      if (warning && !warned.has(session)) {
        warned.add(session);
        // Told to the embedder when it listens (it shows the user), else to the model and user in the result.
        if (options.onWarning) {
          try {
            options.onWarning(warning, session);
          } catch {
            // A failing listener must not fail the command.
          }
        } else note = `\n\n[sandbox] ${warning}`;
      }
      const yieldArg = options.sessions ? args.yield_time_ms : undefined;
      if (options.sessions && typeof yieldArg === 'number') {
        try {
          const { sessionId, poll } = await options.sessions.start(
            {
              owner: session,
              command,
              shell: options.shell ?? defaultShell(),
              cwd,
              env,
              sandbox,
              workspace,
              timeoutMs: timeoutSeconds > 0 ? timeoutSeconds * 1000 : 0,
              keepBackgroundJobs: options.keepBackgroundJobs ?? false,
            },
            clampSessionInt(yieldArg, DEFAULT_YIELD_MS, 0, MAX_YIELD_MS),
            budget,
            ctx.signal,
          );
          const text = formatSessionPoll(sessionId, poll) + note;
          return poll.timedOut ? fail(text) : ok(text);
        } catch (error) {
          return fail(`Error executing command: ${errorMessage(error)}${note}`);
        }
      }
      let result;
      try {
        result = await runCommand({
          shell: options.shell ?? defaultShell(),
          command,
          cwd,
          env,
          timeoutMs: timeoutSeconds > 0 ? timeoutSeconds * 1000 : 0,
          keepChars: budget,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          keepBackgroundJobs: options.keepBackgroundJobs ?? false,
          sandbox,
          workspace,
        });
      } catch (error) {
        return fail(`Error executing command: ${errorMessage(error)}${note}`);
      }
      if (result.timedOut) return fail(`Error: Command timed out after ${timeoutSeconds} seconds${note}`);
      if (result.aborted) return fail(`Error: Command interrupted${note}`);

      const out = streamText(result.stdout);
      const err = streamText(result.stderr);
      const parts: string[] = [];
      if (out.text) parts.push(out.text);
      if (err.text.trim()) parts.push(`STDERR:\n${err.text}`);
      // Killed by a signal: report it as Python's returncode does (-<signal number>).
      const signalNumber = result.signalName ? osConstants.signals[result.signalName] : undefined;
      const code = result.exitCode ?? (signalNumber !== undefined ? -signalNumber : 'unknown');
      parts.push(`\nExit code: ${code}`);
      // Dropped middles of both streams count towards the reported truncation.
      return ok(truncateMiddle(parts.join('\n'), budget, out.omitted + (err.text.trim() ? err.omitted : 0)) + note);
    },
  };
}

/** The `exec` tool, ready to register (see `createExecSpec` for its behaviour). */
export function createExecTool(options: ExecOptions = {}): Tool<ExecArgs> {
  return toTool(createExecSpec(options), { timeoutMs: 0 });
}
