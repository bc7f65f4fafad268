/** Severity of a {@link PostgresBusLogger} line (graphile-worker's levels). */
export type PostgresBusLogLevel = 'debug' | 'info' | 'warning' | 'error';

/**
 * Receives the bus's log lines and graphile-worker's, prefixed `graphile-worker: `. Called
 * synchronously; must not throw.
 */
export type PostgresBusLogger = (level: PostgresBusLogLevel, message: string) => void;

/**
 * What happened to a bus, for operators and tests (`bus.onEvent`). Listeners are called
 * synchronously, must not throw, and must not mutate the event.
 */
export type PostgresBusEvent =
  /** A graphile-worker runner started (`starts` counts them; more than 1 means it was restarted). */
  | { type: 'runner_started'; starts: number }
  /** The runner failed to start, stopped, or was found deaf: a new one starts after `retryInMs`. */
  | { type: 'runner_failed'; reason: string; error: unknown; retryInMs: number }
  /** A job-lookup slot stopped taking jobs while the database answers (then `runner_failed` follows). */
  | { type: 'runner_deaf'; idleMs: number; pollErrors: number }
  /** This worker could not renew its lease in time and stopped its turns (their sessions go to other workers). */
  | { type: 'lease_lost'; sessions: string[]; silentMs: number }
  /** A turn lost its session: taken over by a newer turn, or stopped with the lease. Nothing more of it is written. */
  | { type: 'turn_fenced'; sessionKey: string; inboundId: string; reason: string }
  /** This worker handed dead workers' jobs (silent for longer than the lease) back to the queue. */
  | { type: 'takeover'; workers: string[] }
  /** A fire-and-forget publish failed and is retried (same idempotency key). */
  | { type: 'publish_retry'; idempotencyKey: string; error: unknown }
  /** A fire-and-forget publish was given up (the bus closed before the database came back). */
  | { type: 'publish_failed'; idempotencyKey: string; error: unknown };

/** The bus's health (`bus.health()`), what `nanobot worker` logs. */
export interface PostgresBusHealth {
  /**
   * `ok`: everything it does works; `degraded`: its runner is restarting, its job lookups fail, or
   * its lease could not be renewed in time; `idle`: not a worker (publishes and delivers only);
   * `closed`.
   */
  status: 'ok' | 'degraded' | 'idle' | 'closed';
  /** Whether `startWorker()` was called. */
  worker: boolean;
  /** Whether a job runner is running right now. */
  runnerRunning: boolean;
  /** Runners started so far (1 + restarts). */
  runnerStarts: number;
  /** Last successful job lookup (ISO time), null before the first. */
  lastPollAt: string | null;
  /** Job-lookup failures in a row. */
  pollErrors: number;
  /** Jobs this process took. */
  jobsTaken: number;
  /** Turns this process ran to the end, and turns it gave up because they lost their session. */
  turnsCompleted: number;
  turnsFenced: number;
  /** Turns running now. */
  activeTurns: number;
  /** Successful heartbeats with lease renewal, and the last one (ISO time). */
  leaseRenewals: number;
  lastLeaseRenewalAt: string | null;
  /** Whether the lease was renewed within the lease time. */
  leaseHeld: boolean;
  /** Fire-and-forget publishes not yet stored. */
  pendingPublishes: number;
}
