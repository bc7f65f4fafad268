/**
 * Everything both entries of `@nanobot/schema` export (index.ts for every runtime, node.ts for
 * Node, Bun and Deno): one folder per sub-domain; each folder's `index.ts` lists its public
 * exports. The zod-bound message schemas and parsers are bound by each entry.
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
