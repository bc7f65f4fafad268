// A session's replayed history outlives its run, so that the next run of the session resumes it
// when its initial messages are the previous transcript's rows (a caller passing
// `result.messages` plus the next user message back as `initialMessages`). The next run checks
// that by one pointer pass (see ReplayedHistory); a loop that rebuilds its rows from a stored
// session gets new objects and rebuilds. A run takes its session's history for itself and
// hands it back when it ends, so two runs of one session at once never share one.
import type { ReplayedHistory } from './replayed-history.js';

/** Sessions whose idle history is kept (least recently handed back goes first). */
export const MAX_KEPT_SESSION_HISTORIES = 64;

/** The idle replayed histories of an agent's sessions, by session key. */
export class SessionHistories {
  readonly #idle = new Map<string, ReplayedHistory>();
  readonly #max: number;

  constructor(max = MAX_KEPT_SESSION_HISTORIES) {
    this.#max = max;
  }

  /** How many are kept now. */
  get size(): number {
    return this.#idle.size;
  }

  /** Takes the session's history (no longer kept), or undefined. */
  take(sessionKey: string): ReplayedHistory | undefined {
    const history = this.#idle.get(sessionKey);
    if (history !== undefined) this.#idle.delete(sessionKey);
    return history;
  }

  /** Keeps `history` as the session's (replacing one kept), dropping the least recent beyond the bound. */
  keep(sessionKey: string, history: ReplayedHistory): void {
    this.#idle.delete(sessionKey);
    this.#idle.set(sessionKey, history);
    if (this.#idle.size > this.#max) this.#idle.delete(this.#idle.keys().next().value!);
  }
}
