// Byte-pair merging in O(n log n). js-tiktoken's own merge rescans every adjacent pair after
// each merge (quadratic, with a string join per pair), so a 16,000-character word — base64,
// minified code, a hex dump in a tool result — takes tens of seconds to count. This merge makes
// the same choices (lowest rank first, leftmost on ties) with a heap and a linked list of parts,
// so it returns exactly the tokens js-tiktoken would.

/** Looks up the rank of a byte sequence spelled as js-tiktoken keys it (`"104,105"`). */
export type RankLookup = (key: string) => number | undefined;

function keyOf(bytes: Uint8Array, start: number, end: number): string {
  let key = String(bytes[start]);
  for (let i = start + 1; i < end; i++) key += ',' + bytes[i];
  return key;
}

/**
 * Splits one pre-tokenised piece (its UTF-8 bytes) into BPE tokens and returns their ranks.
 * Pure. Equal to js-tiktoken's `bytePairEncode` for every input (property-tested).
 */
export function bytePairMerge(bytes: Uint8Array, rankOf: RankLookup): number[] {
  const n = bytes.length;
  if (n === 0) return [];
  const whole = rankOf(keyOf(bytes, 0, n));
  if (whole !== undefined) return [whole];

  // Parts are identified by their start byte; `end[s]` is where part s ends, `prev`/`next`
  // link live parts. A heap entry is a candidate merge of part `left` with the part after it,
  // valid only while both parts are unchanged (checked lazily when popped).
  const end = new Int32Array(n);
  const prev = new Int32Array(n);
  const next = new Int32Array(n);
  const alive = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    end[i] = i + 1;
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
    alive[i] = 1;
  }

  const heapRank: number[] = [];
  const heapLeft: number[] = [];
  const heapRightEnd: number[] = [];
  const less = (a: number, b: number): boolean =>
    heapRank[a]! < heapRank[b]! || (heapRank[a] === heapRank[b] && heapLeft[a]! < heapLeft[b]!);
  const swap = (a: number, b: number): void => {
    [heapRank[a], heapRank[b]] = [heapRank[b]!, heapRank[a]!];
    [heapLeft[a], heapLeft[b]] = [heapLeft[b]!, heapLeft[a]!];
    [heapRightEnd[a], heapRightEnd[b]] = [heapRightEnd[b]!, heapRightEnd[a]!];
  };
  const push = (rank: number, left: number, rightEnd: number): void => {
    heapRank.push(rank);
    heapLeft.push(left);
    heapRightEnd.push(rightEnd);
    let i = heapRank.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(i, parent)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const pop = (): void => {
    const last = heapRank.length - 1;
    swap(0, last);
    heapRank.pop();
    heapLeft.pop();
    heapRightEnd.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heapRank.length && less(l, m)) m = l;
      if (r < heapRank.length && less(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  const consider = (left: number): void => {
    const right = next[left]!;
    if (right < 0) return;
    const rank = rankOf(keyOf(bytes, left, end[right]!));
    if (rank !== undefined) push(rank, left, end[right]!);
  };

  for (let i = 0; i + 1 < n; i++) consider(i);
  while (heapRank.length > 0) {
    const left = heapLeft[0]!;
    const rightEnd = heapRightEnd[0]!;
    pop();
    const right = next[left]!;
    if (!alive[left] || right < 0 || end[right] !== rightEnd) continue; // stale candidate
    end[left] = rightEnd;
    alive[right] = 0;
    const after = next[right]!;
    next[left] = after;
    if (after >= 0) prev[after] = left;
    if (prev[left]! >= 0) consider(prev[left]!);
    consider(left);
  }

  const ranks: number[] = [];
  for (let s = 0; s >= 0; s = next[s]!) {
    const rank = rankOf(keyOf(bytes, s, end[s]!));
    // Single bytes always have a rank in cl100k; js-tiktoken drops unknown parts the same way.
    if (rank !== undefined) ranks.push(rank);
  }
  return ranks;
}
