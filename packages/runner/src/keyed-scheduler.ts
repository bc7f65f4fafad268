/**
 * Runs tasks serially per key and at most `limit` at once across keys (0 or less: unlimited).
 * Tasks of one key start in submission order; a slow key never blocks other keys beyond the
 * shared limit (a waiting key does not hold a slot).
 */
export class KeyedScheduler {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #tails = new Map<string, Promise<void>>();
  readonly #pending = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Tasks submitted for `key` and not finished yet (queued or running). */
  pendingFor(key: string): number {
    return this.#pending.get(key) ?? 0;
  }

  /** Tasks holding a slot right now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Schedules `task` after every earlier task of `key`. The returned promise settles like the
   * task; a task that throws does not stop later tasks of the key.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.#pending.set(key, this.pendingFor(key) + 1);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(async () => {
      await this.#acquire();
      try {
        return await task();
      } finally {
        this.#release();
      }
    });
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      const left = this.pendingFor(key) - 1;
      if (left <= 0) this.#pending.delete(key);
      else this.#pending.set(key, left);
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  async #acquire(): Promise<void> {
    if (this.#limit <= 0 || this.#running < this.#limit) {
      this.#running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running -= 1;
  }
}
