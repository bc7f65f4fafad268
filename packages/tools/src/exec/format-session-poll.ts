import { pythonRepr } from '@nanobot/schema';
import type { ExecSessionWriteResult } from './exec-session-manager.js';

/** `yield_time_ms` default and maximum (the reference's `DEFAULT_YIELD_MS`, `MAX_YIELD_MS`). */
export const DEFAULT_YIELD_MS = 1000;
export const MAX_YIELD_MS = 30_000;
/** `wait_timeout_ms` default and maximum. */
export const DEFAULT_WAIT_FOR_MS = 10_000;
export const MAX_WAIT_FOR_MS = 120_000;
/** `max_output_chars` of the session tools: default, minimum, maximum. */
export const DEFAULT_SESSION_OUTPUT = 10_000;
export const MIN_SESSION_OUTPUT = 1000;
export const MAX_SESSION_OUTPUT = 50_000;

/** The reference's `clamp_session_int`: `value` (floored) within bounds, `fallback` when absent or not a number. Pure. */
export function clampSessionInt(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(Math.floor(value), min), max);
}

/**
 * The reference's `format_session_poll`: output, the truncation note, timeout / terminated /
 * stdin notes, then `Exit code: N` or `Process running. session_id: …`, then the elapsed time.
 * A `wait_for` that was not seen adds `Wait target not observed: '…'`. Pure.
 */
export function formatSessionPoll(sessionId: string, poll: ExecSessionWriteResult, waitFor?: string): string {
  const parts = poll.output ? [poll.output] : [];
  if (poll.truncatedChars) parts.push(`(${poll.truncatedChars.toLocaleString('en-US')} chars truncated from output)`);
  if (poll.timedOut) parts.push('Error: Command timed out; session was terminated.');
  if (poll.terminated && !poll.timedOut) parts.push('Session terminated.');
  if (poll.stdinClosed) parts.push('Stdin closed.');
  parts.push(poll.done ? `Exit code: ${poll.exitCode}` : `Process running. session_id: ${sessionId}`);
  parts.push(`Elapsed: ${poll.elapsedS.toFixed(1)}s`);
  let text = parts.join('\n');
  if (waitFor !== undefined && poll.waitObserved === false) text += `\nWait target not observed: ${pythonRepr(waitFor)}`;
  return text;
}
