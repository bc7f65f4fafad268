import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { govern, type GovernResult } from '@nanobot/governor';
import type { CacheBreakpoints, Message, ToolDefinition } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';

/** The recorded sessions of `fixtures/transcripts`, frozen. */
export function recordedSessions(): Message[][] {
  const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json')
    .map((f) => deepFreeze(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[]));
}

/** A request cut from a recorded session with the boundaries a provider is handed. */
export interface PlannedRequest {
  messages: readonly Message[];
  plan: CacheBreakpoints;
  /** The governor's result when the request was governed (its report planned `plan`), else null. */
  governed: GovernResult | null;
}

/**
 * A prefix of a recorded session, either governed at a 32k window (the report's boundaries) or
 * raw with random, possibly out-of-range boundaries.
 */
export function arbitraryPlannedRequest(sessions: readonly Message[][], tools: readonly ToolDefinition[]): fc.Arbitrary<PlannedRequest> {
  return fc
    .tuple(
      fc.integer({ min: 0, max: sessions.length - 1 }),
      fc.double({ min: 0.05, max: 1, noNaN: true }),
      fc.boolean(),
      fc.record({ tools: fc.boolean(), instructions: fc.nat(400), cut: fc.nat(400), previous: fc.nat(400), last: fc.nat(400) }, { requiredKeys: [] }),
    )
    .map(([s, share, governed, random]) => {
      const raw = sessions[s].slice(0, Math.max(1, Math.floor(sessions[s].length * share)));
      const g = governed ? govern(raw, { tools, contextWindowTokens: 32_000 }) : null;
      return { messages: g ? g.messages : raw, plan: g ? g.report.cacheBoundaries : random, governed: g };
    });
}
