import type { Tool } from '@nanobot/tools-core';
import { toTool } from './to-tool.js';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { constants as osConstants, homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { BuiltinToolSpec } from './builtin-tool.js';
import { errorMessage, fail, ok } from './builtin-tool.js';
import { checkCommandPolicy, extractCommandUrls, EXEC_BOUNDARY_NOTE } from './exec-guard.js';
import { isInside, realpathAllowMissing } from './resolve-workspace-path.js';
import { runCommand, type CapturedStream } from './run-command.js';
import { SsrfBlockedError } from './ssrf-blocked-error.js';
import { isBlockedAddress, vetUrl, type SsrfPolicy } from './ssrf-guard.js';
import { truncateMiddle } from './truncate-middle.js';
import { WorkspaceViolationError } from './workspace-violation-error.js';
import { scopeFor, type WorkspaceOptions } from './workspace-scope.js';

/** Arguments of `exec`. */
export interface ExecArgs {
  command: string;
  working_dir?: string;
  timeout?: number;
  max_output_chars?: number;
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
  /** Leave background jobs running after the command returns (default false). */
  keepBackgroundJobs?: boolean;
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
 * outside the workspace). The guard is a heuristic: run untrusted agents in a real sandbox.
 */
export function createExecSpec(options: ExecOptions = {}): BuiltinToolSpec<ExecArgs> {
  const configTimeout = options.timeout ?? 60;
  const defaultBudget = options.maxOutputChars ?? 10_000;
  return {
    name: 'exec',
    description:
      'Run a shell command in the workspace and return stdout, stderr and the exit code. Long output is cut in the ' +
      'middle. Prefer the file tools for reading and editing files.',
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
      },
      required: ['command'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const command = typeof args.command === 'string' ? args.command : '';
      if (!command.trim()) return fail('Error: command must be a non-empty string');
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
        restrictToWorkspace: restrict,
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
        });
      } catch (error) {
        return fail(`Error executing command: ${errorMessage(error)}`);
      }
      if (result.timedOut) return fail(`Error: Command timed out after ${timeoutSeconds} seconds`);
      if (result.aborted) return fail('Error: Command interrupted');

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
      return ok(truncateMiddle(parts.join('\n'), budget, out.omitted + (err.text.trim() ? err.omitted : 0)));
    },
  };
}

/** The `exec` tool, ready to register (see `createExecSpec` for its behaviour). */
export function createExecTool(options: ExecOptions = {}): Tool<ExecArgs> {
  return toTool(createExecSpec(options), { timeoutMs: 0 });
}
