/**
 * `@nanobot/tools`: the built-in tools and their guards. One folder per sub-domain; each folder's
 * `index.ts` lists its public exports.
 */
export { createBuiltinTools } from './create-builtin-tools.js';
export type { BuiltinToolsOptions } from './create-builtin-tools.js';

export * from './files/index.js';
export * from './exec/index.js';
export * from './sandbox/index.js';
export * from './web/index.js';
export * from './agent/index.js';
export * from './workspace/index.js';
export * from './tool/index.js';
