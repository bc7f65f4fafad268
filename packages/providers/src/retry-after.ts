/** The smallest delay a retry-after hint turns into (the reference's floor). */
const FLOOR_MS = 100;

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * The server's retry hint in milliseconds from response headers: `retry-after-ms`, else
 * `retry-after` as seconds or an HTTP date (relative to `now`). `undefined` when absent or unusable.
 */
export function retryAfterFromHeaders(headers: HeaderSource | Record<string, string | undefined> | undefined | null, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null | undefined =>
    typeof (headers as HeaderSource).get === 'function' ? (headers as HeaderSource).get(name) : (headers as Record<string, string | undefined>)[name];
  const ms = get('retry-after-ms');
  if (ms != null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value > 0) return Math.max(FLOOR_MS, value);
  }
  const raw = get('retry-after');
  if (raw == null || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.max(FLOOR_MS, Number(text) * 1000);
  // HTTP dates without a zone are read as UTC, as the reference does.
  const date = Date.parse(/(GMT|UTC|[+-]\d{4}|Z)$/i.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(date)) return undefined;
  return Math.max(FLOOR_MS, date - now);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000, m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000 };
const TEXT_PATTERNS = [
  /retry after (\d+(?:\.\d+)?)\s*(ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m)?\b/,
  /try again in (\d+(?:\.\d+)?)\s*(ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m)?\b/,
  /wait (\d+(?:\.\d+)?)\s*(ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m)? before retry/,
  /retry[_-]after["' :=]+(\d+(?:\.\d+)?)/,
];

/** A retry hint written in an error message ("try again in 20s", `retry_after: 3`), in ms. */
export function retryAfterFromText(text: string | undefined | null): number | undefined {
  if (!text) return undefined;
  const lower = text.toLowerCase();
  for (const pattern of TEXT_PATTERNS) {
    const match = pattern.exec(lower);
    if (!match) continue;
    const unit = UNIT_MS[match[2] ?? 's'] ?? 1000;
    return Math.max(FLOOR_MS, Number(match[1]) * unit);
  }
  return undefined;
}
