// The pipeline every dialect runs on its model copy: `govern` with the dialect's API as the
// target, so the copy is already legal for it (no empty content, instructions handled, role
// rules) and the report is govern's own — through a Governor when the dialect has one (its
// conversation's cut plan and memos carried), else the one-shot govern.
import type { Message } from '@nanobot/schema';
import { govern } from '../govern.js';
import type { GovernOptions, GovernResult } from '../govern-options.js';
import type { Governor } from '../governor.js';
import type { GovernTarget } from '../steps/target/govern-target.js';

/** `governor.govern(model, { ...options, target })` (or `govern` without one); throws what govern throws. */
export function governModelCopy(model: readonly Message[], options: GovernOptions, target: GovernTarget, governor?: Governor): GovernResult {
  const call = { ...options, target };
  return governor === undefined ? govern(model, call) : governor.govern(model, call);
}
