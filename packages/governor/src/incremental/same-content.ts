// Content equality of stored messages, for recognising a rebuilt history (equal messages, new
// objects: a session reloaded from storage, a prompt the AI SDK builds anew for every step) as
// the one governed before. Strict: plain objects and arrays only, same keys in the same order
// (JSON depends on it), primitives by `===`; anything else (class instances, typed arrays, NaN)
// is equal only to itself, so "not equal" is always a safe answer. Symbol-keyed fields (a
// dialect's origin records) must be the very same values: a message a dialect made afresh is
// not taken for another dialect's.
import { hash53 } from '../internal/hash.js';

function plainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function sameSymbols(a: object, b: object): boolean {
  const sa = Object.getOwnPropertySymbols(a);
  const sb = Object.getOwnPropertySymbols(b);
  if (sa.length !== sb.length) return false;
  for (let i = 0; i < sa.length; i++) {
    if (sa[i] !== sb[i] || (a as Record<symbol, unknown>)[sa[i]] !== (b as Record<symbol, unknown>)[sb[i]]) return false;
  }
  return true;
}

/** Whether `a` and `b` are the same JSON-like value (see the file comment). */
export function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameContent(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !plainObject(a) || !plainObject(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || !sameSymbols(a, b)) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (k !== kb[i] || !sameContent((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** How many messages a history's opening holds (see {@link openingFingerprint}). */
export function openingLength(messages: readonly unknown[]): number {
  let end = 0;
  while (end < messages.length && end < 4) {
    const role = (messages[end] as { role?: unknown } | null)?.role;
    end++;
    if (role === 'user') break;
  }
  return end;
}

/**
 * A fingerprint of a history's opening — its messages up to and including the first user
 * message (at most four) — the same for every request of a conversation, from the first on.
 * Only finds where to look: the prefix is then compared, never trusted.
 */
export function openingFingerprint(messages: readonly unknown[]): string {
  const end = openingLength(messages);
  let json: string;
  try {
    json = JSON.stringify(messages.slice(0, end)) ?? '';
  } catch {
    json = String(end);
  }
  return hash53(json);
}
