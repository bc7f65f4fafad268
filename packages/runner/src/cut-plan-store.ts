import type { CutPlan } from '@nanobot/governor';

/** Sessions whose plans are kept; the least recently used one goes first beyond that. */
const MAX_SESSIONS = 1024;

/**
 * The governor's history cut plan of each session, in memory, so a session's next turn re-applies
 * the cut of its previous request and the prompt prefix stays cacheable across turns. Losing a
 * plan (restart, eviction) only costs one fresh cut. Bounded: subagents each get a session key.
 */
export class CutPlanStore {
  readonly #plans = new Map<string, CutPlan>();

  /** The plan of a session's last request, or null. */
  get(sessionKey: string): CutPlan | null {
    const plan = this.#plans.get(sessionKey);
    if (plan === undefined) return null;
    this.#plans.delete(sessionKey);
    this.#plans.set(sessionKey, plan);
    return plan;
  }

  /** Records (or, with null, forgets) a session's plan. */
  set(sessionKey: string, plan: CutPlan | null): void {
    this.#plans.delete(sessionKey);
    if (plan === null) return;
    this.#plans.set(sessionKey, plan);
    if (this.#plans.size > MAX_SESSIONS) this.#plans.delete(this.#plans.keys().next().value!);
  }

  /** How many sessions have a plan. */
  get size(): number {
    return this.#plans.size;
  }
}
