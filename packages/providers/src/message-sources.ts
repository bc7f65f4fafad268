import type { Message } from '@nanobot/schema';

// Where each message of a converted copy came from, as the index of the newest original message
// whose content it holds: what a planned cache boundary (an index into the originals) needs
// after the conversion has inserted and merged messages. -1: nothing of the originals.

/**
 * Sources after `moveToolAttachmentsToUser(before)`: every message kept one for one (tool
 * results rewritten in place), plus a user message of attachments inserted after a block of
 * tool results, which holds content of those results (the source of the one before it).
 */
export function sourcesAfterAttachmentMove(before: readonly Message[], sources: readonly number[], after: readonly Message[]): number[] {
  if (after === before) return sources.slice();
  const out: number[] = [];
  let p = 0;
  for (const message of after) {
    const b = before[p];
    if (b !== undefined && (message === b || (message.role === 'tool' && b.role === 'tool'))) out.push(sources[p++]);
    else out.push(p > 0 ? sources[p - 1] : -1);
  }
  return out;
}

/**
 * Sources after `enforceRoleAlternation(before)` (from @nanobot/governor; untouched messages
 * are the input objects): a run of same-role user or assistant messages merged into one takes
 * the newest source of the run, trailing assistant turns dropped take nothing, a popped turn
 * re-labelled `user` (a history with no user turn) takes the dropped tail's, and a
 * `(conversation continued)` opener takes the source of the assistant turn it opens, so a
 * boundary on the instructions stays before it.
 */
export function sourcesAfterAlternation(before: readonly Message[], sources: readonly number[], after: readonly Message[]): number[] {
  if (after === before) return sources.slice();
  const newest = (from: number, to: number): number => {
    let m = -1;
    for (let k = from; k <= to; k++) m = Math.max(m, sources[k]);
    return m;
  };
  const out: number[] = [];
  let p = 0;
  after.forEach((message, k) => {
    const b = before[p];
    if (b !== undefined && message === b) {
      out.push(sources[p++]);
      return;
    }
    if (b !== undefined && (message.role === 'user' || message.role === 'assistant') && b.role === message.role) {
      let q = p;
      while (q + 1 < before.length && before[q + 1].role === message.role) q++;
      if (q > p) {
        out.push(newest(p, q));
        p = q + 1;
        return;
      }
    }
    if (k === after.length - 1 && p < before.length && before.slice(p).every((m) => m.role === 'assistant')) {
      out.push(newest(p, before.length - 1));
      p = before.length;
      return;
    }
    // An opener: filled in below with the source of the turn after it.
    out.push(Number.NaN);
  });
  for (let k = out.length - 1; k >= 0; k--) if (Number.isNaN(out[k])) out[k] = k + 1 < out.length ? out[k + 1] : -1;
  return out;
}
