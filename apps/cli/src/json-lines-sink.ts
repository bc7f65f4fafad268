import type { EventSink, RunnerEvent } from '@nanobot/runner';

/**
 * An `EventSink` that prints each event as one JSON object per line (for scripts:
 * `nanobot run --json | jq`). Values JSON cannot hold (bigint, cycles) are replaced by a string;
 * never throws.
 */
export function jsonLinesSink(out: NodeJS.WritableStream): EventSink & { line(value: Record<string, unknown>): void } {
  const line = (value: Record<string, unknown>): void => {
    let text: string;
    try {
      text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    } catch {
      text = JSON.stringify({ type: String(value.type ?? 'unknown'), error: 'event could not be serialised' });
    }
    out.write(`${text}\n`);
  };
  const sink = (event: RunnerEvent): void => line(event as unknown as Record<string, unknown>);
  return Object.assign(sink, { line });
}
