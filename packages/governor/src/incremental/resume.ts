// The incremental layer's entry for the pipeline runner: for a step it has a memo for, the
// outcome resumed from the previous call on the same history (equal to the step's plain run:
// the property tests compare them), else undefined (the runner runs the step itself).
import type { Message } from '@nanobot/schema';
import { toolResultBudgetOptions } from '../steps/size/apply-tool-result-budget.js';
import { compactInflightOutcome } from '../steps/size/compact-inflight-overflow.js';
import { shortenNewestOutcome } from '../steps/size/shorten-newest-results.js';
import type { GovernStep, StepContext, StepOutcome } from '../steps/step.js';
import type { GovernorMemos } from './memo-store.js';
import { backfillOpenTail } from './tail-backfill.js';

/** What the runner knows of the current list: clean (see structureScan) and its open tail. */
export interface CleanState {
  list: readonly Message[];
  openTail: { index: number; ids: ReadonlySet<string> } | null;
}

/** The resumed outcome of `step` on `list`, or undefined when the step has no memo. */
export function resumeStep(memos: GovernorMemos, step: GovernStep, list: readonly Message[], ctx: StepContext, clean: CleanState | null): StepOutcome | undefined {
  switch (step.name) {
    case 'backfillMissingToolResults':
      if (clean === null || clean.list !== list) return undefined;
      return clean.openTail === null ? { messages: list as Message[] } : backfillOpenTail(list, clean.openTail, ctx.derive, memos.appended);
    case 'legalizeForTarget':
      return memos.legalize.run(list, ctx.target!);
    case 'applyToolResultBudget': {
      const { messages, changes } = memos.budgets.run(list, toolResultBudgetOptions(ctx));
      return { messages, toolResults: changes };
    }
    case 'compactInflightOverflow':
      // Results found by the kept index, and the lists weighed kept and counted incrementally.
      return ctx.budget > 0 ? compactInflightOutcome(list, ctx, memos.toolResults.locator(list), memos.compactions.listsFor(ctx.estimate) ?? undefined) : undefined;
    case 'shortenNewestResults':
      // The pending step's minimal copy from the instructions known to lead the history.
      return shortenNewestOutcome(list, ctx, () => (list.length === 0 ? -1 : memos.instructions.of(list)));
    case 'snipHistory':
      return memos.snips.run(list, ctx);
    case 'enforceRoleAlternation':
      // Two steps report under this name: the strict alternation and the user-first opener.
      return ctx.profile?.roleOrder === 'strict' ? memos.alternation.run(list) : ctx.profile?.roleOrder === 'user-first' ? memos.userFirst.run(list) : undefined;
    case 'separateToolResultsFromUser':
      return memos.separations.run(list);
    case 'placeholderThoughtSignatures':
      return memos.placeholders.run(list, ctx.profile!.currentTurnSignaturePlaceholder!);
    default:
      return undefined;
  }
}
