/**
 * `@nanobot/schema`: the message model, tool definitions and JSON Schema helpers, token
 * estimation, the provider interface and typed errors. One folder per sub-domain; each folder's
 * `index.ts` lists its public exports.
 */
export * from './messages/index.js';
export * from './errors/index.js';
export * from './json-schema/index.js';
export * from './provider/index.js';
export * from './tokens/index.js';
export * from './tokenizer/index.js';
export * from './models/index.js';
export * from './python/index.js';
export * from './text/index.js';
