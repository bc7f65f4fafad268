/** What a command reads and writes: the process by default, streams of a test otherwise. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** How the user started the CLI, for hints they can copy (default `nanobot`; see `invocationName`). */
  invokedAs?: string;
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

/** The command to show in hints: `nanobot`, `pnpm nanobot`, or `node …/bin.js`. */
export function commandName(io: CliIo): string {
  return io.invokedAs ?? 'nanobot';
}
