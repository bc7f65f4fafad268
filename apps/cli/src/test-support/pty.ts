// A pseudo-terminal for CLI tests: util-linux `script` runs the command on a pty of the given
// size (Debian's bsdutils, part of every Debian system), and a headless xterm.js renders what it
// printed, as a person would see it: which lines the terminal had to wrap, and the final screen.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Terminal as XtermTerminal } from '@xterm/headless';

const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as { Terminal: typeof XtermTerminal };

/** Throws unless util-linux `script` is there (the pty tests never skip). */
export function requireScript(): void {
  if (spawnSync('script', ['--version'], { encoding: 'utf8' }).status !== 0) {
    throw new Error('util-linux `script` not found: install bsdutils (Debian) or util-linux. The pty tests never skip.');
  }
}

/** A command running on a pseudo-terminal. */
export class PtyProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the terminal received, escape sequences included. */
  output = '';
  readonly exited: Promise<number | null>;
  readonly cols: number;
  #waiters: (() => void)[] = [];

  /**
   * Runs `command` (a shell command line) in `cwd` with `env`, on a `cols`×`rows` terminal.
   * `script -e` exits with the command's status.
   */
  constructor(command: string, options: { cols: number; rows?: number; env: Record<string, string>; cwd?: string }) {
    this.cols = options.cols;
    const sized = `stty cols ${options.cols} rows ${options.rows ?? 40} 2>/dev/null; exec ${command}`;
    this.child = spawn('script', ['-qfec', sized, '/dev/null'], { env: { ...options.env, TERM: 'xterm-256color' }, ...(options.cwd ? { cwd: options.cwd } : {}) });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.output += d;
      this.#wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => {
      this.output += d;
      this.#wake();
    });
    this.exited = new Promise((resolve) => this.child.on('close', (code) => {
      this.#wake();
      resolve(code);
    }));
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** How much output there is so far (to wait only for what comes next). */
  get mark(): number {
    return this.output.length;
  }

  /** Resolves once the output after `from` matches `pattern`; rejects if the command exits first. */
  async waitFor(pattern: RegExp, from = 0): Promise<void> {
    for (;;) {
      if (pattern.test(this.output.slice(from))) return;
      if (this.child.exitCode !== null) throw new Error(`exited before ${pattern}:\n${this.output}`);
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** Types `text` (use `\r` for Enter, `\x04` for Ctrl-D, `\x03` for Ctrl-C). */
  type(text: string): void {
    this.child.stdin.write(text);
  }
}

/** One line of the rendered terminal. */
export interface ScreenLine {
  text: string;
  /** The terminal wrapped the line before this one into it: something was wider than the terminal. */
  wrapped: boolean;
}

/** Renders terminal output on a `cols`-wide xterm and returns every line (scrollback included). */
export async function renderTerminal(output: string, cols: number): Promise<ScreenLine[]> {
  const term = new Terminal({ cols, rows: 50, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(output, resolve));
  const buffer = term.buffer.active;
  const lines: ScreenLine[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i)!;
    lines.push({ text: line.translateToString(true), wrapped: line.isWrapped });
  }
  term.dispose();
  while (lines.length > 0 && lines[lines.length - 1].text === '' && !lines[lines.length - 1].wrapped) lines.pop();
  return lines;
}

/** The lines the terminal had to wrap (each with the line before it), for an assertion message. */
export function overflowing(lines: readonly ScreenLine[]): string[] {
  return lines.flatMap((line, i) => (line.wrapped ? [`${lines[i - 1]?.text ?? ''}⏎${line.text}`] : []));
}
