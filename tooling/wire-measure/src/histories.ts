// The histories the measurement sends: the recorded sessions of fixtures/transcripts (as the
// governor's transcript suite loads them) and the hand-made model-switch histories of
// fixtures/model-switch, with the points where a client would send a request, and the budgets.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@nanobot/schema';

/** One history to measure. */
export interface History {
  /** File name without `.json`. */
  name: string;
  kind: 'recorded' | 'model-switch';
  /** The family that produced it (`mixed` for switches; `recorded` sessions: as recorded). */
  producer: string;
  messages: readonly Message[];
}

/** The fixtures folder (`$NANOBOT_FIXTURES_DIR`, else the repository's `fixtures/`). */
export function fixturesDir(): string {
  return process.env.NANOBOT_FIXTURES_DIR ?? join(import.meta.dirname, '..', '..', '..', 'fixtures');
}

const jsonFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();

/** Every recorded session and model-switch history, sorted by kind then name. */
export function loadHistories(dir = fixturesDir()): History[] {
  const recorded = jsonFiles(join(dir, 'transcripts')).map((f): History => ({ name: f.replace(/\.json$/, ''), kind: 'recorded', producer: 'recorded', messages: JSON.parse(readFileSync(join(dir, 'transcripts', f), 'utf8')) as Message[] }));
  const switches = jsonFiles(join(dir, 'model-switch')).map((f): History => {
    const data = JSON.parse(readFileSync(join(dir, 'model-switch', f), 'utf8')) as { producer: string; messages: Message[] };
    return { name: f.replace(/\.json$/, ''), kind: 'model-switch', producer: data.producer, messages: data.messages };
  });
  return [...recorded, ...switches];
}

/**
 * Where a client sends a request: after each user message (every history), and for the
 * model-switch histories also after each complete run of tool results (the middle of a tool
 * loop, where "current turn" rules apply). Lengths of the prefixes, ascending.
 */
export function requestPoints(h: History): number[] {
  const out: number[] = [];
  h.messages.forEach((m, i) => {
    if (m.role === 'user') out.push(i + 1);
    else if (h.kind === 'model-switch' && m.role === 'tool' && h.messages[i + 1]?.role !== 'tool') out.push(i + 1);
  });
  return out;
}

/** Every `stride`-th point counted from the first, plus the last (stride 1: all). */
export function samplePoints(points: readonly number[], stride: number): number[] {
  if (stride <= 1) return [...points];
  const picked = points.filter((_, k) => k % stride === 0);
  if (points.length > 0) picked.push(points[points.length - 1]!);
  return [...new Set(picked)];
}

/** A named input budget; `null`: none (repairs only). */
export interface Budget {
  label: string;
  tokens: number | null;
}

/** The budgets of issue 25's measurement: 8k, 32k and none. */
export const BUDGETS: readonly Budget[] = [
  { label: '8k', tokens: 8_000 },
  { label: '32k', tokens: 32_000 },
  { label: 'none', tokens: null },
];

/** Govern options whose input budget is exactly `tokens` (as the governor's transcript suite sets it). */
export function budgetOptions(tokens: number | null): { contextWindowTokens?: number; contextBlockLimit?: number } {
  return tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
}

/** Tool names called anywhere in a history (the tools a request declares), sorted. */
export function toolNames(messages: readonly Message[]): string[] {
  const names = new Set<string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) if (typeof c?.function?.name === 'string' && /^[a-zA-Z0-9_-]{1,64}$/.test(c.function.name)) names.add(c.function.name);
  return [...names].sort();
}
