/**
 * Aborts a stream that goes quiet: the SDKs' `timeout` only covers the wait for response headers,
 * so a stream that stalls afterwards would hang forever. `touch()` on every event is one
 * `timer.refresh()`, cheap enough for the per-delta hot path.
 */
export class IdleTimer {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private fired = false;

  constructor(readonly timeoutMs: number, parent?: AbortSignal) {
    this.signal = parent ? AbortSignal.any([parent, this.controller.signal]) : this.controller.signal;
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort();
    }, timeoutMs);
    this.timer.unref?.();
  }

  /** Whether the stream was aborted because it stalled (as opposed to the caller aborting). */
  get timedOut(): boolean {
    return this.fired;
  }

  touch(): void {
    this.timer.refresh();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
