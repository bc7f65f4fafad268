// A target's declared rules: what the legalisation and role steps do for one API, as data. One
// file per provider family under profiles/ and one line in its table (profiles/index.ts); the
// target steps read the profile, never the target's name.
import type { GovernTarget } from './govern-target.js';

/** One rule of a target, with where the provider states it. */
export interface TargetRule {
  /** A short stable name (as `checkLegality` reports a broken rule). */
  id: string;
  /** What the rule requires, as the provider documents it. */
  requires: string;
  /** Where the provider documents it. */
  source: string;
}

/** What an API requires of a request, as the target steps apply it. Plain, frozen data. */
export interface TargetProfile {
  readonly target: GovernTarget;
  /** The rules the profile enforces, each with its source. */
  readonly rules: readonly TargetRule[];
  /**
   * Strict content rules (Anthropic's): no blank text block (removed; blank text next to tool
   * calls becomes null), `developer` becomes `system`, an instruction after the conversation
   * started becomes a marked user note in its place.
   */
  readonly strictContent: boolean;
  /** Tool-call ids the API accepts (null: any string); others are renamed, call and results alike. */
  readonly toolCallIdPattern: RegExp | null;
  /**
   * Role order: `'user-first'` (a user turn first after the instructions) or `'strict'`
   * (same-role turns merged, a user turn first and last).
   */
  readonly roleOrder: 'user-first' | 'strict';
}
