// Timing helper shared by the governor's benchmarks (not a benchmark itself: no `.bench.ts`).

/** Median wall time of `repeat` runs of `fn`, in milliseconds. `fn` is called synchronously. */
export function medianTime(fn: () => void, repeat = 5): number {
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}
