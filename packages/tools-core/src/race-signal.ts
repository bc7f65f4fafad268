/** Returned by {@link raceSignal} when the signal won. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * Settles like `promise`, or with {@link ABORTED} as soon as `signal` aborts, whichever comes
 * first; `promise` itself keeps running (a tool or caller stops waiting, not working). Unlike
 * `Promise.race` against a long-lived promise, it leaves no reaction behind: the abort listener
 * is removed when `promise` settles (a long stream races once per delta). A rejection of
 * `promise` after the abort is swallowed.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
