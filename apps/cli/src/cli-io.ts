import { shellCommand } from './command-hint.js';
import { outputWidth, wrapWidth } from './terminal-width.js';

/** What a command reads and writes: the process by default, streams of a test otherwise. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * How the user started the CLI, as command words they can type again (default `['nanobot']`;
   * see `invocationWords`): every hint the CLI prints starts with them.
   */
  invokedAs?: readonly string[];
  /**
   * Subscribes to Ctrl-C / SIGINT; returns the unsubscribe function. The handler is called
   * synchronously for each signal, must not throw, and is not awaited.
   */
  onInterrupt(handler: () => void): () => void;
}

/** Whether colours are wanted on `stream` (a terminal, and neither NO_COLOR nor --no-color). */
export function wantsColor(io: CliIo, noColorFlag: boolean | undefined, stream: { isTTY?: boolean } = io.stderr): boolean {
  return !noColorFlag && !io.env.NO_COLOR && stream.isTTY === true;
}

/** The words of a command to show in a hint: how the CLI was started, then `args`. */
export function hintWords(io: CliIo, args: readonly string[]): string[] {
  return [...(io.invokedAs ?? ['nanobot']), ...args];
}

/** A command to show in a hint, as one shell line (for hints inside a sentence). */
export function hintCommand(io: CliIo, args: readonly string[]): string {
  return shellCommand(hintWords(io, args));
}

/** Columns to lay out output for `stream` (its terminal's width; 80 on a pipe). */
export function columnsOf(io: CliIo, stream: CliIo['stdout']): number {
  return outputWidth(stream, io.env);
}

/** Writes a notice line on stderr, word-wrapped to the terminal (as it is on a pipe). */
export function writeNotice(io: CliIo, line: string): void {
  io.stderr.write(`${io.stderr.isTTY === true ? wrapWidth(line, columnsOf(io, io.stderr), '  ') : line}\n`);
}
