// How the reference (HKUDS/nanobot 3852956, nanobot/session/manager.py, JsonlSessionStore) reads
// and edits a session file, restated for tests. Each function follows the Python source line by
// line; it was checked against the real reference on the files the interop test produces.
import { parseJson, stringifyJson } from '../src/python-json.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const linesOf = (bytes: Buffer): string[] => bytes.toString('utf8').split(/(?<=\n)/);

/** `_load_unlocked`: every non-blank line; the last metadata record wins; other records are messages. */
export function referenceLoad(bytes: Buffer): Rec {
  let metadata: unknown = {};
  let createdAt: unknown = null;
  let updatedAt: unknown = null;
  let lastConsolidated: unknown = 0;
  let providerState: unknown = null;
  const messages: Rec[] = [];
  for (const raw of linesOf(bytes)) {
    const line = raw.trim();
    if (!line) continue;
    const data = parseJson(line) as Rec;
    if (data._type === 'metadata') {
      metadata = isRec(data.metadata) ? data.metadata : {};
      createdAt = data.created_at ?? null;
      updatedAt = data.updated_at ?? null;
      lastConsolidated = Number.isInteger(data.last_consolidated) ? data.last_consolidated : 0;
    } else if (data._type === 'provider_state') {
      providerState = data.state;
    } else {
      messages.push(data);
    }
  }
  return { messages, metadata, createdAt, updatedAt, lastConsolidated, providerState };
}

/** `_read_metadata_unlocked`: the first non-blank line, which must be the metadata record. */
export function referenceReadMetadata(bytes: Buffer): Rec | null {
  for (const raw of linesOf(bytes)) {
    const line = raw.trim();
    if (!line) continue;
    const data = parseJson(line) as Rec;
    if (data._type !== 'metadata') return null;
    return { key: data.key, created_at: data.created_at, updated_at: data.updated_at, metadata: isRec(data.metadata) ? data.metadata : {} };
  }
  return null;
}

/** `_list_sessions_unlocked`: `f.readline().strip()` — the very first line only. */
export function referenceListEntry(bytes: Buffer): Rec | null {
  const first = (linesOf(bytes)[0] ?? '').trim();
  if (!first) return null;
  const data = parseJson(first) as Rec;
  if (data._type !== 'metadata') return null;
  const metadata = isRec(data.metadata) ? data.metadata : {};
  return { key: data.key, created_at: data.created_at, updated_at: data.updated_at, title: typeof metadata.title === 'string' ? metadata.title : '' };
}

/** `update_metadata`: replaces the first line's `metadata` with `{...metadata, ...updates}`, copies the rest. */
export function referenceUpdateMetadata(bytes: Buffer, updates: Rec): Buffer | null {
  const text = bytes.toString('utf8');
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl + 1);
  const data = parseJson(first.trim()) as Rec;
  if (data._type !== 'metadata') return null;
  data.metadata = { ...(isRec(data.metadata) ? data.metadata : {}), ...updates };
  return Buffer.concat([Buffer.from(stringifyJson(data) + '\n'), bytes.subarray(Buffer.byteLength(first))]);
}
