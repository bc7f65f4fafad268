import { NanobotError } from '@nanobot/schema';
import type { BudgetOverflow } from './report/govern-report.js';

/**
 * Thrown by {@link govern} with `onOverflow: 'throw'` when the copy cannot fit its budget
 * (code `BUDGET_EXCEEDED`). `overflow` says why, with the estimates; nothing was sent.
 */
export class BudgetExceededError extends NanobotError {
  /** Why the copy does not fit, as it would appear in `report.overflow`. */
  readonly overflow: BudgetOverflow;

  constructor(overflow: BudgetOverflow) {
    super('BUDGET_EXCEEDED', `govern: ${overflow.message}`);
    this.overflow = overflow;
  }
}
