import type { Message } from '@nanobot/schema';

/** Something a loader noticed and skipped; nothing is dropped silently. */
export interface SessionWarning {
  /** `corrupt-line`: not JSON; `truncated-line`: the unterminated last line is not JSON (a torn write);
   *  `invalid-record`: JSON but not a message or known record; `missing-header`: no metadata record. */
  kind: 'corrupt-line' | 'truncated-line' | 'invalid-record' | 'missing-header';
  /** 1-based line number in the file (0 for whole-file warnings). */
  line: number;
  message: string;
  /** The skipped line as it was on disk (so it can be recovered by hand). */
  raw?: string;
}

/** Result of parsing one session file's text. */
export interface ParsedSessionFile {
  key: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  metadata: Record<string, unknown>;
  lastConsolidated: unknown;
  providerState: unknown;
  messages: Message[];
  warnings: SessionWarning[];
  /** Bytes taken by header/provider-state records that a later record superseded. */
  supersededBytes: number;
  /** Whether the text ends with a newline (an append must start a new line otherwise). */
  endsWithNewline: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** File name of a session: base64url of the UTF-8 key without `=` padding, plus `.jsonl`. */
export function sessionFileName(key: string): string {
  return `${Buffer.from(key, 'utf8').toString('base64url')}.jsonl`;
}

/** The key encoded in a session file name, or null when the name is not one of ours. */
export function sessionKeyFromFileName(name: string): string | null {
  if (!name.endsWith('.jsonl')) return null;
  const stem = name.slice(0, -'.jsonl'.length);
  if (!/^[A-Za-z0-9_-]+$/.test(stem)) return null;
  const key = Buffer.from(stem, 'base64url').toString('utf8');
  return sessionFileName(key) === name ? key : null;
}

/** The file name older nanobot versions used (`:` replaced by `_`). */
export function legacySessionFileName(key: string): string {
  return `${key.replace(/:/g, '_')}.jsonl`;
}

/** The metadata record (first line of a canonical file; also appended when metadata changes). */
export function headerRecord(s: {
  key: string;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  lastConsolidated: number;
}): Record<string, unknown> {
  return {
    _type: 'metadata',
    key: s.key,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    metadata: s.metadata,
    last_consolidated: s.lastConsolidated,
  };
}

/** The provider continuation record. */
export function providerStateRecord(state: unknown): Record<string, unknown> {
  return { _type: 'provider_state', state };
}

/**
 * Parses a session file. Reads the reference's layout (metadata first, optional
 * provider_state, one message per line) and our appended layout (later metadata/provider_state
 * records override earlier ones). Bad lines are skipped and reported in `warnings`.
 */
export function parseSessionFile(text: string): ParsedSessionFile {
  const result: ParsedSessionFile = {
    key: null,
    createdAt: null,
    updatedAt: null,
    metadata: {},
    lastConsolidated: 0,
    providerState: null,
    messages: [],
    warnings: [],
    supersededBytes: 0,
    endsWithNewline: text === '' || text.endsWith('\n'),
  };
  const lines = text.split('\n');
  let headerBytes = 0;
  let providerBytes = 0;
  let sawHeader = false;
  for (let i = 0; i < lines.length; i += 1) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    const lineNo = i + 1;
    const isLast = i === lines.length - 1;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (error) {
      result.warnings.push({
        kind: isLast ? 'truncated-line' : 'corrupt-line',
        line: lineNo,
        message: `${isLast ? 'Unterminated last line' : 'Line'} ${lineNo} is not valid JSON (${(error as Error).message}); skipped`,
        raw,
      });
      continue;
    }
    const bytes = Buffer.byteLength(raw) + 1;
    if (!isObject(record)) {
      result.warnings.push({ kind: 'invalid-record', line: lineNo, message: `Line ${lineNo} is not a JSON object; skipped`, raw });
      continue;
    }
    if (record._type === 'metadata') {
      result.supersededBytes += headerBytes;
      headerBytes = bytes;
      sawHeader = true;
      if (typeof record.key === 'string') result.key = record.key;
      if (typeof record.created_at === 'string') result.createdAt = record.created_at;
      if (typeof record.updated_at === 'string') result.updatedAt = record.updated_at;
      result.metadata = isObject(record.metadata) ? record.metadata : {};
      result.lastConsolidated = record.last_consolidated ?? 0;
      continue;
    }
    if (record._type === 'provider_state') {
      result.supersededBytes += providerBytes;
      providerBytes = bytes;
      result.providerState = record.state ?? null;
      continue;
    }
    if (record._type !== undefined || typeof record.role !== 'string') {
      result.warnings.push({
        kind: 'invalid-record',
        line: lineNo,
        message: `Line ${lineNo} is neither a message (string "role") nor a known record; skipped`,
        raw,
      });
      continue;
    }
    result.messages.push(record as Message);
  }
  if (!sawHeader && result.messages.length > 0) {
    result.warnings.push({ kind: 'missing-header', line: 0, message: 'No metadata record found; defaults used' });
  }
  const lastStamp = result.messages.at(-1)?.timestamp;
  if (typeof lastStamp === 'string' && (result.updatedAt === null || lastStamp > result.updatedAt)) result.updatedAt = lastStamp;
  return result;
}
