// The incremental layer's entry for the pipeline runner: for a step it knows, the outcome
// resumed from the previous call on the same history (equal to the step's plain run), else
// undefined (the runner runs the step itself).
import type { Message } from '@nanobot/schema';
import type { GovernStep, StepContext, StepOutcome } from '../steps/step.js';
import { alternationWithReport } from './alternation-memo.js';
import { legalizeWithReport } from './legalize-memo.js';
import { backfillOpenTail } from './tail-backfill.js';

/** What the runner knows of the current list: clean (see structureScan) and its open tail. */
export interface CleanState {
  list: readonly Message[];
  openTail: { index: number; ids: ReadonlySet<string> } | null;
}

/** The resumed outcome of `step` on `list`, or undefined when the step has no memo. */
export function resumeStep(step: GovernStep, list: readonly Message[], ctx: StepContext, clean: CleanState | null): StepOutcome | undefined {
  switch (step.name) {
    case 'backfillMissingToolResults':
      if (clean === null || clean.list !== list) return undefined;
      return clean.openTail === null ? { messages: list as Message[] } : backfillOpenTail(list, clean.openTail);
    case 'legalizeForTarget':
      return legalizeWithReport(list, ctx.target!);
    case 'enforceRoleAlternation':
      return ctx.profile?.roleOrder === 'strict' ? alternationWithReport(list) : undefined;
    default:
      return undefined;
  }
}
