import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One conformance case as written by the reference harness. */
export interface ConformanceCase {
  name: string;
  fn: string;
  input: Record<string, any>;
  config: Record<string, any>;
  expected: any;
  raised: boolean;
  input_mutated: boolean;
  notes?: string | string[];
}

const FLOATS: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

function revive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && '$float' in value) {
    return FLOATS[(value as { $float: string }).$float];
  }
  return value;
}

/** Loads `conformance/<file>` from the shared folder, reviving `$float` markers. */
export function loadCases(file: string): ConformanceCase[] {
  const dir = process.env['NANOBOT_SHARED_DIR'];
  if (!dir) throw new Error('NANOBOT_SHARED_DIR is not set (vitest.shared.ts sets it)');
  const doc = JSON.parse(readFileSync(join(dir, 'conformance', file), 'utf8'), revive) as { cases: ConformanceCase[] };
  return doc.cases;
}

/** Deep-freezes a value so a test fails if the code under test mutates it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Whether a case carries a note tag. */
export function hasNote(c: ConformanceCase, tag: string): boolean {
  const notes = c.notes;
  return Array.isArray(notes) ? notes.includes(tag) : typeof notes === 'string' && notes.includes(tag);
}
