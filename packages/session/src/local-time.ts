const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * Local time as Python's `datetime.now().isoformat()` writes it
 * (`YYYY-MM-DDTHH:MM:SS.ffffff`, no zone), which is what nanobot session files hold.
 */
export function localIsoTimestamp(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}000`
  );
}

/** Local `YYYY-MM-DD HH:MM`, the timestamp format of `memory/history.jsonl` entries. */
export function localMinuteTimestamp(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
