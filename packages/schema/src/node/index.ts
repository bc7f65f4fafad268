/** What the Node entry adds to the main one: synchronous rank loading, ajv, zod required on first use. */
import './node-sources.js';

export { messageSchema, toolCallSchema, parseMessage, parseMessages } from './zod-bound.js';
