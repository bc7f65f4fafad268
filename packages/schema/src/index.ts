/**
 * `@nanobot/schema`: the message model, tool definitions and JSON Schema helpers, token
 * estimation, the provider interface and typed errors. This main entry runs in every runtime
 * (no `node:*` import, no `createRequire`): token counts there need `await loadTokenizer()`
 * first, and full JSON Schema validation interprets schemas. Node, Bun and Deno get ./node.ts
 * instead, through the `node` export condition.
 */
export * from './core.js';
export { messageSchema, toolCallSchema, parseMessage, parseMessages } from './messages/zod-bound.js';
