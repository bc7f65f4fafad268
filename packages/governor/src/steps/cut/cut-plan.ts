import { ValidationError, type Message } from '@nanobot/schema';
import type { ReportedCut } from '../../report/govern-report.js';
import { isInstructionRole } from '../target/govern-target.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { hash53 } from '../../internal/hash.js';

export type { ReportedCut } from '../../report/govern-report.js';

/**
 * Where the previous request cut the history, as {@link govern} returns it in
 * `result.cutPlan`. Keep one per session and pass it back on the next call: while the history
 * behind the cut still fits, the same cut is re-applied, so consecutive requests share their
 * prefix and the provider's prompt cache hits. Plain JSON: it may be stored with the session.
 * Positions count only the non-instruction messages (`system` / `developer` are never cut).
 * A plan that does not match the history (edited, another session) is ignored, never trusted.
 */
export interface CutPlan {
  version: 1;
  /** Position where the kept history resumes: the messages before it are cut (but the anchor). */
  start: number;
  /**
   * Position of the user message kept in front: `start` itself for a cut at a user turn, an
   * earlier position for a cut inside that turn's tool loop (the user message stays, its
   * oldest tool steps go).
   */
  anchor: number;
  /** Fingerprints of the anchor and of the last removed message (`anchor:last`). */
  fingerprint: string;
  /**
   * Position of a server compaction anchor kept in front of `start` (before it, and not the
   * user message at `anchor`): present only on such a cut, which is re-applied with the anchor.
   */
  serverAnchor?: number;
}


/** The cache key of message fingerprints. */
const FINGERPRINT = Symbol('fingerprint');

/**
 * A content fingerprint of one message: role, content, tool-call ids, names and arguments, and
 * the result's call id; not object identity (sessions loaded from storage are new objects) and
 * not metadata such as timestamps.
 */
export function messageFingerprint(message: Message, derive: DerivationCache = NO_CACHE): string {
  return derive.derive(message, FINGERPRINT, () => fingerprintOf(message));
}

function fingerprintOf(message: Message): string {
  const m = message as { role?: unknown; content?: unknown; tool_call_id?: unknown; tool_calls?: unknown };
  const calls = Array.isArray(m.tool_calls)
    ? m.tool_calls.map((c: unknown) => {
      const call = (c ?? {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      return [call.id, call.function?.name, call.function?.arguments];
    })
    : null;
  return hash53(JSON.stringify([m.role, m.content ?? null, m.tool_call_id ?? null, calls]) ?? '');
}

/**
 * The plan of a cut resuming at `start` with `rest[anchor]` kept in front (and the server
 * compaction anchor at `serverAnchor`, when one is kept in front too).
 */
export function makeCutPlan(rest: readonly Message[], start: number, anchor: number, derive: DerivationCache = NO_CACHE, serverAnchor?: number): CutPlan {
  const plan = cutPlanAt(start, anchor, messageFingerprint(rest[anchor], derive), messageFingerprint(rest[start - 1], derive));
  return serverAnchor === undefined ? plan : { ...plan, serverAnchor };
}

/** The plan of a cut at `start` / `anchor` whose anchor and last cut message have these fingerprints. */
export function cutPlanAt(start: number, anchor: number, anchorFingerprint: string, lastFingerprint: string): CutPlan {
  return { version: 1, start, anchor, fingerprint: `${anchorFingerprint}:${lastFingerprint}` };
}

/**
 * Finds a plan's cut in `rest` (the non-instruction messages): at its recorded position when
 * the fingerprints match there, else at the matching position nearest to it (the history's
 * front was archived or windowed since). Null when nothing matches.
 */
export function locateCutPlan(plan: CutPlan, rest: readonly Message[], derive: DerivationCache = NO_CACHE): { start: number; anchor: number } | null {
  const [anchorFp, lastFp] = plan.fingerprint.split(':');
  const gap = plan.start - plan.anchor;
  const matches = (start: number): boolean => {
    const anchor = start - gap;
    if (start < 1 || start > rest.length || anchor < 0 || anchor >= rest.length || rest[anchor].role !== 'user') return false;
    return messageFingerprint(rest[start - 1], derive) === lastFp && messageFingerprint(rest[anchor], derive) === anchorFp;
  };
  if (matches(plan.start)) return { start: plan.start, anchor: plan.anchor };
  // Only when the position moved (front archived): linear, each message hashed once per object with a cache.
  let best = -1;
  for (let s = 1; s <= rest.length; s++) {
    if (matches(s) && (best < 0 || Math.abs(s - plan.start) < Math.abs(best - plan.start))) best = s;
  }
  return best < 0 ? null : { start: best, anchor: best - gap };
}

/** Throws a {@link ValidationError} unless `value` is absent, null or a well-formed {@link CutPlan}. */
export function checkCutPlan(value: unknown): asserts value is CutPlan | null | undefined {
  if (value === undefined || value === null) return;
  const fail = (why: string): never => {
    throw new ValidationError(`govern: options.cutPlan must be null or a plan returned by govern (result.cutPlan): ${why}`, ['cutPlan']);
  };
  if (typeof value !== 'object' || Array.isArray(value)) fail(`got ${Array.isArray(value) ? 'an array' : typeof value}`);
  const p = value as Record<string, unknown>;
  if (p.version !== 1) fail(`unknown version ${JSON.stringify(p.version) ?? 'undefined'}`);
  for (const key of ['start', 'anchor'] as const) {
    const v = p[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`${key} must be a non-negative integer, got ${JSON.stringify(v) ?? 'undefined'}`);
  }
  if ((p.anchor as number) > (p.start as number) || (p.start as number) < 1) fail('anchor must be at most start, and start at least 1');
  if (typeof p.fingerprint !== 'string' || !/^[0-9a-z]+:[0-9a-z]+$/.test(p.fingerprint)) fail('fingerprint must be two fingerprints joined by ":"');
  const s = p.serverAnchor;
  if (s !== undefined && (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0 || s >= (p.start as number))) fail(`serverAnchor must be a non-negative integer below start, got ${JSON.stringify(s) ?? typeof s}`);
}

/**
 * The report's view of a cut in the final copy: later steps may merge or add messages, so the
 * first kept message is looked up by identity, else the first non-instruction message counts.
 */
export function reportedCut(copy: readonly Message[], snip: { firstKept: Message | null; removedCount: number; reused: boolean; serverCompaction?: ReportedCut['serverCompaction'] }): ReportedCut {
  let index = snip.firstKept === null ? -1 : copy.indexOf(snip.firstKept);
  if (index < 0) index = copy.findIndex((m) => !isInstructionRole(m.role));
  const out: ReportedCut = { index: index < 0 ? copy.length : index, removed: snip.removedCount, reused: snip.reused };
  if (snip.serverCompaction !== undefined) out.serverCompaction = snip.serverCompaction;
  return out;
}

/** Validates `cuts`, `cutTargetRatio` and `cutPlan` of govern's options (ValidationError). */
export function checkCutOptions(o: Record<string, unknown>): void {
  if (o.cuts !== undefined && o.cuts !== 'stable' && o.cuts !== 'tightest') {
    throw new ValidationError(`govern: options.cuts must be 'stable' or 'tightest', got ${JSON.stringify(o.cuts)}`, ['cuts']);
  }
  const r = o.cutTargetRatio;
  if (r !== undefined && (typeof r !== 'number' || !(r > 0 && r <= 1))) {
    throw new ValidationError(`govern: options.cutTargetRatio must be a number in (0, 1], got ${JSON.stringify(r) ?? typeof r}`, ['cutTargetRatio']);
  }
  checkCutPlan(o.cutPlan);
}
