/**
 * An unbounded FIFO whose `take()` waits for the next item. Items are never dropped: a `take()`
 * cancelled through its signal leaves the queue untouched.
 */
export class AsyncQueue<T> {
  readonly #items: T[] = [];
  #head = 0;
  readonly #waiters: { resolve: (value: T) => void; reject: (reason: unknown) => void }[] = [];

  /** Number of queued items not yet taken. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Adds an item, handing it straight to the oldest waiter if there is one. */
  push(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(item);
    else this.#items.push(item);
  }

  /** Removes and returns the oldest item, or undefined when empty. Never waits. */
  tryTake(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Waits for the next item; rejects with the signal's reason if `signal` aborts first. */
  take(signal?: AbortSignal): Promise<T> {
    if (this.size > 0) return Promise.resolve(this.tryTake() as T);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve: (value: T) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject,
      };
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Takes everything queued right now. */
  drain(): T[] {
    const out = this.#items.slice(this.#head);
    this.#items.length = 0;
    this.#head = 0;
    return out;
  }
}
