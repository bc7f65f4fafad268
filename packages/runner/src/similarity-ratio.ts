function longestMatch(a: string, b: string, aLo: number, aHi: number, bLo: number, bHi: number): [number, number, number] {
  let best: [number, number, number] = [aLo, bLo, 0];
  let lengths = new Map<number, number>();
  for (let i = aLo; i < aHi; i += 1) {
    const next = new Map<number, number>();
    for (let j = bLo; j < bHi; j += 1) {
      if (a[i] !== b[j]) continue;
      const k = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > best[2]) best = [i - k + 1, j - k + 1, k];
    }
    lengths = next;
  }
  return best;
}

function matchingCharacters(a: string, b: string, aLo: number, aHi: number, bLo: number, bHi: number): number {
  const [i, j, k] = longestMatch(a, b, aLo, aHi, bLo, bHi);
  if (k === 0) return 0;
  return k + matchingCharacters(a, b, aLo, i, bLo, j) + matchingCharacters(a, b, i + k, aHi, j + k, bHi);
}

/** Ratcliff/Obershelp similarity in [0, 1] (the measure behind "did you mean"). Pure. */
export function similarityRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, b, 0, a.length, 0, b.length)) / total;
}
