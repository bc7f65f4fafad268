// The dialect kit (`@nanobot/governor/dialect`): what a package needs to run the governor on
// another library's message format — tag the model messages it builds with where they came
// from, keep its conversion caches with a Governor, and govern the model copy for its API.
export { createOriginTag, originOf, tagOrigin } from './dialect-origin.js';
export type { OriginTag } from './dialect-origin.js';
export { DialectMemo } from '../incremental/dialect-memo.js';
export { dialectMemoOf } from './dialect-memo-of.js';
export { governModelCopy } from './govern-model-copy.js';
export type { GovernOptions, GovernResult } from '../govern-options.js';
export type { Governor, GovernorCallOptions } from '../governor.js';
export type { GovernTarget } from '../steps/target/govern-target.js';
export type { GovernReport } from '../report/govern-report.js';
export type { CutPlan } from '../steps/cut/cut-plan.js';
