export { loadCases, hasNote, jsonClean, sharedDir } from './conformance.js';
export type { ConformanceCase } from './conformance.js';
export { deepFreeze } from './deep-freeze.js';
