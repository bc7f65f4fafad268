import { isUtf8 } from 'node:buffer';
import type { Message } from '@nanobot/schema';
import { parseJson } from './python-json.js';

/** Something a loader noticed and skipped; nothing is dropped silently. */
export interface SessionWarning {
  /** `corrupt-line`: not JSON; `truncated-line`: the unterminated last line is not JSON (a torn write);
   *  `invalid-record`: JSON but not a message or known record; `missing-header`: no metadata record;
   *  `invalid-utf8`: the line holds bytes that are not UTF-8 — it is loaded (those bytes read as
   *  U+FFFD) and its original bytes are written back unchanged while the message is unchanged. */
  kind: 'corrupt-line' | 'truncated-line' | 'invalid-record' | 'missing-header' | 'invalid-utf8';
  /** 1-based line number in the file (0 for whole-file warnings). */
  line: number;
  message: string;
  /** The skipped line as it was on disk (so it can be recovered by hand), decoded as UTF-8. */
  raw?: string;
}

/** Where the file's only metadata record sits when it is the first line (it can be rewritten in place). */
export interface HeaderSlot {
  /** Bytes of the first line, padding included, newline excluded. */
  length: number;
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
  /** Set when the first line is the file's only metadata record (and valid UTF-8). */
  headerSlot: HeaderSlot | null;
  /** Skipped lines' bytes exactly as on disk (for `<file>.corrupt`). */
  skippedBytes: Uint8Array[];
  /** Messages whose line is not valid UTF-8, with that line's bytes. */
  rawMessageLines: Map<Message, Uint8Array>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
 * records override earlier ones). Bad lines are skipped and reported in `warnings`. Accepts the
 * file's bytes (exact: sizes, invalid UTF-8 kept) or its text. Values are read as Python's
 * `json` writes them (`NaN`, `Infinity`, big integers; see `parseJson`).
 */
export function parseSessionFile(data: string | Uint8Array): ParsedSessionFile {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
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
    endsWithNewline: bytes.length === 0 || bytes[bytes.length - 1] === 0x0a,
    headerSlot: null,
    skippedBytes: [],
    rawMessageLines: new Map(),
  };
  let headerBytes = 0;
  let providerBytes = 0;
  let headers = 0;
  let firstLineHeader: HeaderSlot | null = null;
  const skip = (warning: SessionWarning, line: Uint8Array) => {
    result.warnings.push(warning);
    result.skippedBytes.push(line);
  };
  // Valid UTF-8 throughout (the usual case): decode once and split the text.
  const wholeUtf8 = isUtf8(bytes);
  const texts = wholeUtf8 ? bytes.toString('utf8').split('\n') : null;
  let lineNo = 0;
  let offset = 0;
  for (;;) {
    let line: Buffer | null = null;
    let raw: string;
    let utf8 = true;
    let isLast: boolean;
    const lineStart = offset;
    if (texts) {
      if (lineNo >= texts.length) break;
      raw = texts[lineNo];
      isLast = lineNo === texts.length - 1;
      if (isLast && raw === '') break;
    } else {
      if (offset >= bytes.length) break;
      let end = bytes.indexOf(0x0a, offset);
      isLast = end < 0;
      if (isLast) end = bytes.length;
      line = bytes.subarray(offset, end);
      offset = end + 1;
      utf8 = isUtf8(line);
      raw = line.toString('utf8');
    }
    lineNo += 1;
    const lineBytes = (): Buffer => line ?? Buffer.from(raw, 'utf8');
    if (raw.trim() === '') continue;
    let record: unknown;
    try {
      record = parseJson(raw);
    } catch (error) {
      skip(
        {
          kind: isLast ? 'truncated-line' : 'corrupt-line',
          line: lineNo,
          message: `${isLast ? 'Unterminated last line' : 'Line'} ${lineNo} is not valid JSON (${(error as Error).message}); skipped`,
          raw,
        },
        lineBytes(),
      );
      continue;
    }
    const size = (): number => (line ? line.length : Buffer.byteLength(raw)) + 1;
    if (!isObject(record)) {
      skip({ kind: 'invalid-record', line: lineNo, message: `Line ${lineNo} is not a JSON object; skipped`, raw }, lineBytes());
      continue;
    }
    if (!utf8) {
      result.warnings.push({
        kind: 'invalid-utf8',
        line: lineNo,
        message: `Line ${lineNo} holds bytes that are not UTF-8; loaded with U+FFFD in their place, the bytes are kept on disk`,
        raw,
      });
    }
    if (record._type === 'metadata') {
      result.supersededBytes += headerBytes;
      headerBytes = size();
      headers += 1;
      if (lineNo === 1 && lineStart === 0 && utf8) firstLineHeader = { length: headerBytes - 1 };
      if (typeof record.key === 'string') result.key = record.key;
      if (typeof record.created_at === 'string') result.createdAt = record.created_at;
      if (typeof record.updated_at === 'string') result.updatedAt = record.updated_at;
      result.metadata = isObject(record.metadata) ? record.metadata : {};
      result.lastConsolidated = record.last_consolidated ?? 0;
      continue;
    }
    if (record._type === 'provider_state') {
      result.supersededBytes += providerBytes;
      providerBytes = size();
      result.providerState = record.state ?? null;
      continue;
    }
    if (record._type !== undefined || typeof record.role !== 'string') {
      skip(
        {
          kind: 'invalid-record',
          line: lineNo,
          message: `Line ${lineNo} is neither a message (string "role") nor a known record; skipped`,
          raw,
        },
        lineBytes(),
      );
      continue;
    }
    const message = record as Message;
    if (!utf8 && line) result.rawMessageLines.set(message, line);
    result.messages.push(message);
  }
  if (headers === 1) result.headerSlot = firstLineHeader;
  if (headers === 0 && result.messages.length > 0) {
    result.warnings.push({ kind: 'missing-header', line: 0, message: 'No metadata record found; defaults used' });
  }
  const lastStamp = result.messages.at(-1)?.timestamp;
  if (typeof lastStamp === 'string' && (result.updatedAt === null || lastStamp > result.updatedAt)) result.updatedAt = lastStamp;
  return result;
}
