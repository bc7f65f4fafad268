import type { EventSink, RunnerEvent } from './runner-events.js';

/**
 * Delivers events to several async sinks, each strictly in emission order, without making the
 * emitter wait. `flush()` resolves once every sink has handled everything emitted so far.
 */
export class EventDispatcher {
  readonly #sinks: EventSink[];
  readonly #chains: Promise<void>[];
  readonly #onSinkError: (error: unknown, event: RunnerEvent) => void;

  /** `onSinkError` is called (not awaited) when a sink throws; it must not throw itself. */
  constructor(sinks: readonly EventSink[], onSinkError?: (error: unknown, event: RunnerEvent) => void) {
    this.#sinks = [...sinks];
    this.#chains = this.#sinks.map(() => Promise.resolve());
    this.#onSinkError = onSinkError ?? (() => undefined);
  }

  /** True when nobody listens (emitters may skip building events). */
  get empty(): boolean {
    return this.#sinks.length === 0;
  }

  /** Queues `event` for every sink; never throws, never waits. */
  emit(event: RunnerEvent): void {
    const frozen = Object.freeze(event);
    for (let i = 0; i < this.#sinks.length; i += 1) {
      const sink = this.#sinks[i];
      this.#chains[i] = this.#chains[i].then(async () => {
        try {
          await sink(frozen);
        } catch (error) {
          try {
            this.#onSinkError(error, frozen);
          } catch {
            // a failing error reporter must not break delivery to this sink
          }
        }
      });
    }
  }

  /** Resolves when every sink has handled every event emitted before this call. */
  async flush(): Promise<void> {
    await Promise.all(this.#chains);
  }
}
