import { createHash } from 'node:crypto';

// Session files are named after their key so that `ls` shows which is which: the key as it is
// where every file system takes it, escaped only where one does not. The rules, in order:
// - ASCII letters, digits, `-`, `_` and `.` stay as they are; every other UTF-8 byte of the key
//   becomes `%xx` (lower-case hex, so an escape never adds an upper-case letter);
// - a leading `.` is escaped (the store's own temp files start with one, and so do hidden files),
//   and so is the first letter of a Windows device name (`con`, `nul`, `com1`, …);
// - a key with upper-case letters gets `~<mask>` (which of the name's letters are upper-case, in
//   base 36): on a case-insensitive file system (macOS, Windows) `Chat` and `chat` would
//   otherwise be one file;
// - a name that would exceed MAX_STEM characters keeps a readable head and ends in `~~<hash>`
//   (the key is then read from the file's metadata record, which always holds it).
// Distinct keys therefore never share a file, case folded or not, and every name but the hashed
// ones decodes back to its key. Pure.

/** Longest stem written (the store adds `.jsonl`, `.lock`, `.corrupt` and temp suffixes). */
const MAX_STEM = 200;
/** Readable head kept in a hashed name. */
const HASHED_HEAD = 150;
const KEEP = /^[A-Za-z0-9._-]$/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

function escapeKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && KEEP.test(c) ? c : `%${byte.toString(16).padStart(2, '0')}`;
  }
  if (out.startsWith('.')) out = `%2e${out.slice(1)}`;
  const head = out.split('.')[0];
  if (WINDOWS_DEVICE.test(head)) out = `%${out.charCodeAt(0).toString(16)}${out.slice(1)}`;
  return out;
}

function caseMask(escaped: string): string {
  let mask = 0n;
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) mask |= 1n << BigInt(i);
  }
  return mask === 0n ? '' : `~${mask.toString(36)}`;
}

/**
 * The file name (`<stem>.jsonl`) of a session: the key itself where file systems allow it (see
 * the rules above), e.g. `chat-20261130-004512-3f9a.jsonl`, `telegram%3a12345.jsonl`,
 * `slack%3aC024BE91L~1ob4w.jsonl`. Collision-free on case-sensitive and case-insensitive file
 * systems alike; reversible with {@link sessionKeyFromFileName}. Pure.
 */
export function sessionFileName(key: string): string {
  const escaped = escapeKey(key);
  const stem = escaped + caseMask(escaped);
  if (stem.length <= MAX_STEM) return `${stem}.jsonl`;
  // Cut at a character boundary of the escaped text (never inside a `%xx`), lower-cased so the
  // hash alone tells case-folded twins apart.
  let head = escaped.slice(0, HASHED_HEAD);
  const cut = head.lastIndexOf('%');
  if (cut > head.length - 3) head = head.slice(0, cut);
  const hash = createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32);
  return `${head.toLowerCase()}~~${hash}.jsonl`;
}

/** The reference's file name: base64url of the UTF-8 key without `=` padding, plus `.jsonl`. */
export function referenceSessionFileName(key: string): string {
  return `${Buffer.from(key, 'utf8').toString('base64url')}.jsonl`;
}

/** The file name older nanobot versions used (`:` replaced by `_`; not reversible). */
export function legacySessionFileName(key: string): string {
  return `${key.replace(/:/g, '_')}.jsonl`;
}

/** Whether `name` is a hashed session file name (its key is only in the file's metadata record). */
export function isHashedSessionFileName(name: string): boolean {
  return /^[a-z0-9._%-]*~~[0-9a-f]{32}\.jsonl$/.test(name);
}

function decodeReadable(stem: string): string | null {
  const tilde = stem.indexOf('~');
  const escaped = tilde < 0 ? stem : stem.slice(0, tilde);
  if (!/^(?:[A-Za-z0-9._-]|%[0-9a-f]{2})*$/.test(escaped) || escaped === '') return null;
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    if (escaped[i] === '%') {
      bytes.push(parseInt(escaped.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(escaped.charCodeAt(i));
  }
  const buffer = Buffer.from(bytes);
  const key = buffer.toString('utf8');
  // Only the canonical spelling of a key counts (one name per key, so no two files per key).
  return sessionFileName(key) === `${stem}.jsonl` ? key : null;
}

function decodeReference(stem: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(stem)) return null;
  const key = Buffer.from(stem, 'base64url').toString('utf8');
  return referenceSessionFileName(key) === `${stem}.jsonl` ? key : null;
}

/**
 * The keys a file name can stand for, most likely first: the readable name's key, then the key
 * of a reference (base64url) name. Usually one; two for the rare stem that is both (an all
 * lower-case base64 text of a valid key), which the file's metadata record then decides. Empty
 * for names that are not session files, and for hashed names. Pure.
 */
export function sessionKeysFromFileName(name: string): string[] {
  if (!name.endsWith('.jsonl')) return [];
  const stem = name.slice(0, -'.jsonl'.length);
  const keys: string[] = [];
  for (const key of [decodeReadable(stem), decodeReference(stem)]) if (key !== null && !keys.includes(key)) keys.push(key);
  return keys;
}

/**
 * The key a session file name stands for (a readable name, or the reference's base64url one), or
 * null when it is not a session file name or a hashed one. Pure.
 */
export function sessionKeyFromFileName(name: string): string | null {
  return sessionKeysFromFileName(name)[0] ?? null;
}
