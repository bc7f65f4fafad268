/** One record of `memory/history.jsonl`. */
export interface HistoryEntry {
  cursor: number;
  /** Local `YYYY-MM-DD HH:MM`. */
  timestamp: string;
  content: string;
  session_key?: string;
}

/** A history line the reader skipped. */
export interface HistoryWarning {
  line: number;
  message: string;
  raw: string;
}

/**
 * Tolerant reader of `memory/history.jsonl`: records with a missing, negative, boolean or
 * non-integer cursor, or a non-string timestamp/content, and lines that are not JSON, are
 * skipped and reported in `warnings`. Order is preserved.
 */
export function parseHistoryEntries(text: string): { entries: HistoryEntry[]; warnings: HistoryWarning[] } {
  const entries: HistoryEntry[] = [];
  const warnings: HistoryWarning[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch {
      warnings.push({ line: index + 1, message: 'not valid JSON', raw });
      return;
    }
    const r = record as Record<string, unknown> | null;
    if (
      typeof r !== 'object' || r === null || Array.isArray(r) ||
      typeof r.cursor !== 'number' || !Number.isInteger(r.cursor) || r.cursor < 0 ||
      typeof r.timestamp !== 'string' || typeof r.content !== 'string'
    ) {
      warnings.push({ line: index + 1, message: 'not a history record (cursor, timestamp, content)', raw });
      return;
    }
    const entry: HistoryEntry = { cursor: r.cursor, timestamp: r.timestamp, content: r.content };
    if (typeof r.session_key === 'string') entry.session_key = r.session_key;
    entries.push(entry);
  });
  return { entries, warnings };
}

/** Parses the Dream cursor file (`memory/.dream_cursor`): a non-negative integer, else 0. */
export function parseCursorFile(text: string | null): number {
  if (text === null) return 0;
  const value = Number(text.trim());
  return Number.isInteger(value) && value >= 0 && text.trim() !== '' ? value : 0;
}
