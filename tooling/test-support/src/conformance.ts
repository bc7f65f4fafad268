import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One case recorded by running the reference (see fixtures/conformance/README.md). Fields are
 * loosely typed on purpose: each suite knows the shape of its own `fn`.
 */
export interface ConformanceCase {
  name: string;
  fn: string;
  input: Record<string, any>;
  config: Record<string, any>;
  expected: any;
  raised: boolean;
  input_mutated: boolean;
  input_after?: Record<string, any>;
  returned_input_object?: boolean;
  side_effects?: Record<string, any>;
  notes?: string | string[];
}

const FLOATS: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

// `{"$float": "NaN"}` is how the harness writes non-finite floats, which JSON cannot carry.
function revive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const marker = (value as { $float?: unknown }).$float;
    if (typeof marker === 'string' && Object.keys(value).length === 1) return FLOATS[marker];
  }
  return value;
}

/** Directory of the in-repository fixtures (`fixtures/`) (set by vitest.shared.ts). Throws when unset. */
export function fixturesDir(): string {
  const dir = process.env['NANOBOT_FIXTURES_DIR'];
  if (!dir) throw new Error('NANOBOT_FIXTURES_DIR is not set (vitest.shared.ts sets it)');
  return dir;
}

/** Loads the cases of `conformance/<file>`, reviving `$float` markers. */
export function loadCases(file: string): ConformanceCase[] {
  const doc = JSON.parse(readFileSync(join(fixturesDir(), 'conformance', file), 'utf8'), revive) as { cases: ConformanceCase[] };
  return doc.cases;
}

/** Whether a case carries a note tag such as `float_int_ambiguity`. */
export function hasNote(c: ConformanceCase, tag: string): boolean {
  const notes = c.notes;
  return Array.isArray(notes) ? notes.includes(tag) : typeof notes === 'string' && notes.includes(tag);
}

/** Drops `undefined`-valued keys so results compare like their JSON encoding. */
export function jsonClean<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
