// Runs the built CLI (dist/bin.js) as a child process, as a user would.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLI_BIN = resolve(import.meta.dirname, '..', '..', 'dist', 'bin.js');

if (!existsSync(CLI_BIN)) throw new Error(`build the CLI first (pnpm --filter @nanobot/cli build): ${CLI_BIN} is missing`);

/** A temp directory for one test. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `nanobot-cli-${prefix}-`));
}

/** The environment of the child: no provider keys, base URLs or NANOBOT_* from the machine, a temp HOME. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    // Every provider's key variable configures it now (DEEPSEEK_API_KEY, GEMINI_API_KEY, …).
    if (/^(OPENAI_|ANTHROPIC_|NANOBOT_|AZURE_OPENAI_)|_API_KEY$|^HF_TOKEN$|^AWS_BEARER_TOKEN_BEDROCK$/.test(k) || k === 'NO_COLOR' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  return { ...env, HOME: tempDir('home'), NO_COLOR: '1', ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env: options.env ?? cleanEnv(), cwd: options.cwd ?? tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/** A running CLI whose output can be awaited piece by piece (for interactive sessions). */
export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  #waiters: (() => void)[] = [];

  constructor(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
    this.child = spawn(process.execPath, [CLI_BIN, ...args], { env: options.env ?? cleanEnv(), cwd: options.cwd ?? tmpdir() });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      this.#wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      this.#wake();
    });
    this.exited = new Promise((resolvePromise, reject) => {
      this.child.on('error', reject);
      this.child.on('close', (code, signal) => {
        this.#wake();
        resolvePromise({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves once stdout or stderr (after `from`) matches `pattern`; rejects if the process exits first. */
  async waitFor(pattern: RegExp, from: { out: number; err: number } = { out: 0, err: 0 }): Promise<void> {
    let done = false;
    void this.exited.then(() => (done = true));
    for (;;) {
      if (pattern.test(this.stdout.slice(from.out)) || pattern.test(this.stderr.slice(from.err))) return;
      if (done || this.child.exitCode !== null) throw new Error(`process exited before ${pattern}:\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** How much output there is so far (to wait only for what comes next). */
  get mark(): { out: number; err: number } {
    return { out: this.stdout.length, err: this.stderr.length };
  }

  /** Sends one line on stdin. */
  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }
}
