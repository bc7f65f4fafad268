export { loadCases, hasNote, jsonClean, fixturesDir } from './conformance.js';
export type { ConformanceCase } from './conformance.js';
export { deepFreeze } from './deep-freeze.js';
export { loadedModules } from './loaded-modules.js';
export { reachableSources } from './reachable-sources.js';
export type { ReachableSources } from './reachable-sources.js';
export { isExhaustive, runs } from './exhaustive.js';
export { syntheticHistory } from './synthetic-history.js';
export type { SyntheticMessage } from './synthetic-history.js';
