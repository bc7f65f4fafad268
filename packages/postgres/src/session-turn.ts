import { SessionFencedError } from './errors.js';

/**
 * The fencing context of one worker turn on one session, from `PostgresSessionStore.beginAttempt`:
 * the lease's fencing token (`epoch`, one more than any earlier turn of the session had) and the
 * inbound message whose turn this is. Every write the turn makes (session rows, metadata, the
 * outbound answer, the processed marker) carries the token and is refused by the database once a
 * newer token exists. Read-only for callers; the bus and the store change its state.
 */
export interface SessionTurn {
  readonly key: string;
  readonly inboundId: string;
  readonly epoch: number;
  /** Rows an unfinished earlier attempt of the same message wrote, deleted by the claim. */
  readonly rolledBack: number;
  /** The message was already processed (by an earlier attempt): there is nothing to run. */
  readonly processed: boolean;
  /** False once the turn lost its session (refused by the database, or stopped by its worker). */
  readonly live: boolean;
  /** Why the turn lost its session (null while live). */
  readonly fencedBecause: string | null;
}

/** The mutable state behind a {@link SessionTurn} (package-internal). */
export class TurnState implements SessionTurn {
  readonly key: string;
  readonly inboundId: string;
  readonly epoch: number;
  readonly rolledBack: number;
  readonly processed: boolean;
  /** The lease, used as the longest a write of this turn keeps retrying a lost connection. */
  readonly leaseMs: number;
  fencedBecause: string | null = null;
  readonly #onFenced = new Set<(reason: string) => void>();

  constructor(init: { key: string; inboundId: string; epoch: number; rolledBack: number; processed: boolean; leaseMs: number }) {
    this.key = init.key;
    this.inboundId = init.inboundId;
    this.epoch = init.epoch;
    this.rolledBack = init.rolledBack;
    this.processed = init.processed;
    this.leaseMs = init.leaseMs;
  }

  get live(): boolean {
    return this.fencedBecause === null;
  }

  /** Stops every later write of this turn (idempotent); listeners are told once. */
  fence(reason: string): void {
    if (this.fencedBecause !== null) return;
    this.fencedBecause = reason;
    for (const listener of this.#onFenced) {
      try {
        listener(reason);
      } catch {
        // a listener must not keep the others from learning it
      }
    }
    this.#onFenced.clear();
  }

  /** Calls `listener` (synchronously, once; must not throw) when the turn is fenced. */
  onFenced(listener: (reason: string) => void): () => void {
    if (this.fencedBecause !== null) {
      listener(this.fencedBecause);
      return () => undefined;
    }
    this.#onFenced.add(listener);
    return () => this.#onFenced.delete(listener);
  }

  /** The error a write of this fenced turn fails with. */
  error(): SessionFencedError {
    return new SessionFencedError(
      this.key,
      this.epoch,
      `The turn of inbound "${this.inboundId}" no longer owns session "${this.key}" (fencing token ${this.epoch}): ${this.fencedBecause ?? 'fenced'}. Nothing was written; the turn runs on the session's owner.`,
    );
  }
}

/** Waits `ms` (or less when `signal` aborts). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `write`; inside a live turn, a lost connection (`PostgresConnectionError`) is retried with
 * a short backoff while the turn stays live, for at most its lease (each retry must be safe to
 * repeat: every write of a turn is idempotent by position, id or hash). A turn fenced meanwhile
 * fails with its `SessionFencedError`. Outside a turn the first failure is thrown.
 */
export async function retryWhileLive<T>(turn: TurnState | null, write: () => Promise<T>, isConnectionError: (error: unknown) => boolean): Promise<T> {
  const started = performance.now();
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    if (turn && !turn.live) throw turn.error();
    try {
      return await write();
    } catch (error) {
      if (turn === null || !isConnectionError(error)) throw error;
      if (!turn.live) throw turn.error();
      if (performance.now() - started > turn.leaseMs) throw error;
      await sleep(delay);
    }
  }
}
