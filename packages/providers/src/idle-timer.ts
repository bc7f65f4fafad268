/**
 * Aborts a stream that goes quiet: the SDKs' `timeout` only covers the wait for response headers,
 * so a stream that stalls afterwards would hang forever. `touch()` on the per-delta hot path is a
 * counter increment; a coarse timer (a quarter of the timeout) notices when the counter stops
 * moving, so a stall is detected between 1× and 1.25× the timeout.
 */
export class IdleTimer {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setInterval>;
  private fired = false;
  private count = 0;
  private seen = 0;
  private quietSince = Date.now();

  constructor(readonly timeoutMs: number, parent?: AbortSignal) {
    this.signal = parent ? AbortSignal.any([parent, this.controller.signal]) : this.controller.signal;
    this.timer = setInterval(() => this.check(), Math.max(1, Math.floor(timeoutMs / 4)));
    this.timer.unref?.();
  }

  private check(): void {
    const now = Date.now();
    if (this.count !== this.seen) {
      this.seen = this.count;
      this.quietSince = now;
    } else if (now - this.quietSince >= this.timeoutMs) {
      this.fired = true;
      this.stop();
      this.controller.abort();
    }
  }

  /** Whether the stream was aborted because it stalled (as opposed to the caller aborting). */
  get timedOut(): boolean {
    return this.fired;
  }

  /** Records activity (one event arrived). */
  touch(): void {
    this.count++;
  }

  /** Stops watching (the stream ended or failed); never aborts. */
  stop(): void {
    clearInterval(this.timer);
  }
}
