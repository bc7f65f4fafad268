/**
 * Groups calls (by index) into batches that run one after another: with `concurrent` on,
 * consecutive calls for which `isConcurrencySafe` holds share a batch (run in parallel); any
 * other call is a batch of its own. With `concurrent` off every call is its own batch. Pure.
 */
export function planToolBatches<T>(calls: readonly T[], isConcurrencySafe: (call: T) => boolean, concurrent: boolean): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  for (let i = 0; i < calls.length; i += 1) {
    if (concurrent && isConcurrencySafe(calls[i])) {
      current.push(i);
      continue;
    }
    if (current.length > 0) batches.push(current);
    current = [];
    batches.push([i]);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
