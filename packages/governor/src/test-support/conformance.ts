// Loads reference conformance cases (see ../shared/conformance/README.md) for the tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One reference case as recorded. */
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
  notes?: string;
}

const FLOATS: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

/** Reads `<shared>/conformance/<file>` and revives `$float` values. */
export function loadCases(file: string): ConformanceCase[] {
  const dir = process.env.NANOBOT_SHARED_DIR;
  if (!dir) throw new Error('NANOBOT_SHARED_DIR is not set (vitest.shared.ts sets it)');
  const doc = JSON.parse(readFileSync(join(dir, 'conformance', file), 'utf8'), (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v) && typeof v.$float === 'string' && Object.keys(v).length === 1 ? FLOATS[v.$float] : v,
  ) as { cases: ConformanceCase[] };
  return doc.cases;
}

/** Recursively freezes a value so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Drops `undefined`-valued keys so results compare like their JSON encoding. */
export function jsonClean<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
