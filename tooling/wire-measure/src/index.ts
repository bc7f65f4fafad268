// @nanobot-internal/wire-measure: issue 25's measurement of provider rejections.
export { measureProviderRules, mergeMeasurements } from './measure.js';
export type { MeasureOptions, Measurement, RouteTally } from './measure.js';
export { formatMeasurement } from './format-measurement.js';
export { loadHistories, requestPoints, samplePoints, BUDGETS, budgetOptions, toolNames, fixturesDir } from './histories.js';
export type { History, Budget } from './histories.js';
export { measurementRoutes, toolDefinitions } from './routes.js';
export type { Route, RoutePath, SendInput } from './routes.js';
export { toModelMessages } from './to-model-messages.js';
export { MODEL_SWITCH_FIXTURES, renderFixture } from './model-switch-fixtures.js';
export type { ModelSwitchFixture } from './model-switch-fixtures.js';
