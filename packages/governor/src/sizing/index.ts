// How large a prompt may be and how it is counted: the input budget, model defaults, the usage
// calibrator.
export { inputBudget, replyReserve, windowReplyReserve } from './input-budget.js';
export type { InputBudgetOptions, ReplyReserve, ReplyReserveSource } from './input-budget.js';
export { withModelDefaults } from './model-defaults.js';
export type { ModelOptions } from './model-defaults.js';
export { createUsageCalibrator, usageCalibratorFromJSON } from './usage-calibrator.js';
export type { TokenCalibration, UsageCalibrator, UsageCalibratorOptions, UsageCalibratorState, UsageObservation } from './usage-calibrator.js';
