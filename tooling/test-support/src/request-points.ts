// Where a runner sends requests while a session grows, for the benchmarks and tests that govern
// a history one request at a time.

/**
 * The lengths after `from` at which a runner sends a request: after a user message, or after the
 * last result of a tool turn (never inside a turn, whose calls would be answered by backfills).
 */
export function requestPoints(history: readonly { role: string }[], from: number): number[] {
  const points: number[] = [];
  for (let len = from + 1; len <= history.length; len++) {
    const last = history[len - 1]!;
    if ((last.role === 'user' || last.role === 'tool') && history[len]?.role !== 'tool') points.push(len);
  }
  return points;
}
