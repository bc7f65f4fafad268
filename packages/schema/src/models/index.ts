/** The model table: context windows, output limits, tokenizers and prices of known model families. */
export { lookupModel, lookupModelLimits, costOfUsage, addCosts } from './model-table.js';
export type { UsageCost, LookupModelOptions } from './model-table.js';
export type { ModelInfo, ModelPrices, TokenizerName } from './model-info.js';
export { KNOWN_MODELS } from './known-models.js';
