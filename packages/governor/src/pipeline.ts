// The governor's pipeline: every step, in the order it runs. `govern` runs this table through
// one recorder and builds the report from the outcomes. The order is the reference's
// `prepare_for_model` (placeholders, malformed calls, orphan results, missing results, result
// size budget, in-flight compaction, snipping, then orphan and missing results again) with our
// fixes in their places: id repair and regrouping among the repairs, the target's content rules
// before sizing (so the budget counts what is sent), the target's role order after snipping
// (so a cut cannot break it), and shrinking last. Adding a step is one file (its rule and
// declaration, see steps/step.ts) and one line here.
import { snipHistoryStep } from './steps/cut/snip-history.js';
import { backfillMissingToolResultsStep } from './steps/repair/backfill-missing-tool-results.js';
import { dropOrphanToolResultsStep } from './steps/repair/drop-orphan-tool-results.js';
import { regroupToolResultsStep } from './steps/repair/regroup-tool-results.js';
import { repairToolCallIdsStep } from './steps/repair/repair-tool-call-ids.js';
import { stripMalformedToolCallsStep } from './steps/repair/strip-malformed-tool-calls.js';
import { stripPlaceholderAssistantMessagesStep } from './steps/repair/strip-placeholder-assistant-messages.js';
import { applyToolResultBudgetStep } from './steps/size/apply-tool-result-budget.js';
import { compactInflightOverflowStep } from './steps/size/compact-inflight-overflow.js';
import { shortenNewestResultsStep } from './steps/size/shorten-newest-results.js';
import { microcompactKeepRecentStep } from './steps/size/microcompact-keep-recent.js';
import { shrinkToFitStep } from './steps/size/shrink-to-fit.js';
import type { GovernStep } from './steps/step.js';
import { enforceRoleAlternationStep } from './steps/target/enforce-role-alternation.js';
import { legalizeForTargetStep } from './steps/target/legalize-for-target.js';
import { placeholderThoughtSignaturesStep } from './steps/target/placeholder-thought-signatures.js';
import { currentTurnReasoningStep } from './steps/target/current-turn-reasoning.js';
import { separateToolResultsFromUserStep } from './steps/target/separate-tool-results-from-user.js';
import { userFirstStep } from './steps/target/user-first.js';

/** The steps in run order (a step listed twice runs twice: its second pass is `pass: 2`). */
export const PIPELINE: readonly GovernStep[] = Object.freeze([
  stripPlaceholderAssistantMessagesStep,
  stripMalformedToolCallsStep,
  repairToolCallIdsStep,
  dropOrphanToolResultsStep,
  regroupToolResultsStep,
  backfillMissingToolResultsStep,
  legalizeForTargetStep,
  applyToolResultBudgetStep,
  microcompactKeepRecentStep,
  compactInflightOverflowStep,
  shortenNewestResultsStep,
  snipHistoryStep,
  dropOrphanToolResultsStep,
  backfillMissingToolResultsStep,
  enforceRoleAlternationStep,
  userFirstStep,
  separateToolResultsFromUserStep,
  placeholderThoughtSignaturesStep,
  currentTurnReasoningStep,
  shrinkToFitStep,
]);
