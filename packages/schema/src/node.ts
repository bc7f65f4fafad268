/**
 * `@nanobot/schema/node`: the main entry as Node, Bun and Deno get it (`@nanobot/schema` resolves
 * here through the `node` export condition). The same exports, plus what only they can do:
 * token counts load the tokenizer's ranks synchronously on first use (no `await loadTokenizer()`
 * needed), full JSON Schema validation uses ajv, and zod loads on first use.
 */
export * from './core.js';
export * from './node/index.js';
