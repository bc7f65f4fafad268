// The pipeline every dialect runs on its model copy: `govern` with the dialect's API as the
// target, so the copy is already legal for it (no empty content, instructions handled, role
// rules) and the report is govern's own.
import type { Message } from '@nanobot/schema';
import { govern, type GovernOptions, type GovernResult } from '../govern.js';
import type { GovernTarget } from '../steps/target/govern-target.js';

/** `govern(model, { ...options, target })`; throws what `govern` throws. */
export function governModelCopy(model: readonly Message[], options: GovernOptions, target: GovernTarget): GovernResult {
  return govern(model, { ...options, target });
}
