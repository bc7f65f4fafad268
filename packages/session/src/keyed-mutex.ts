/**
 * Serialises async work per key inside one process: `run(key, fn)` starts `fn` only after
 * every earlier `run` with the same key has settled. Different keys run concurrently.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` (awaited; may throw — the error goes to this caller only) under the key's turn. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(fn, fn);
    const settled = current.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    }
  }
}
