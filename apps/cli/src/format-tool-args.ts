/** Shortens a value for one display line: newlines escaped, long text cut with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\r?\n/g, '⏎').replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * Tool arguments as a short `key=value` line (`path=README.md limit=20`), at most `max`
 * characters; strings with spaces are quoted. Pure; never throws (unknown shapes become JSON).
 */
export function formatToolArgs(args: unknown, max = 72): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    let text: string;
    try {
      text = typeof args === 'string' ? args : JSON.stringify(args) ?? '';
    } catch {
      text = String(args);
    }
    return clip(text, max);
  }
  const parts = Object.entries(args as Record<string, unknown>).map(([key, value]) => {
    let shown: string;
    if (typeof value === 'string') shown = /[\s"=]/.test(value) || value === '' ? JSON.stringify(clip(value, 48)) : clip(value, 48);
    else {
      try {
        shown = clip(JSON.stringify(value) ?? String(value), 32);
      } catch {
        shown = String(value);
      }
    }
    return `${key}=${shown}`;
  });
  return clip(parts.join(' '), max);
}

/** A duration for humans: `12 ms`, `3.4 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
