// The message schemas and parsers of the Node entry: zod is required on first use (it costs
// ~100 ms to import, more than the rest of the package), not imported at load as the main
// entry's (../messages/zod-bound.ts) must be for bundlers to see it.
import type { z } from 'zod';
import { lazyMessageSchema, lazyToolCallSchema, type MessageSchema, type ToolCallSchema } from '../messages/message.js';
import { messageParsers, type MessageParsers } from '../messages/parse-message.js';
import { requireHere } from './node-sources.js';

let zod: typeof z | undefined;
const requireZod = (): typeof z => (zod ??= (requireHere('zod') as { z: typeof z }).z);

/** zod schema of one tool call as persisted (built on first use). */
export const toolCallSchema: ToolCallSchema = lazyToolCallSchema(requireZod);

/** zod schema of one persisted message record; errors name the wrong field (built on first use). */
export const messageSchema: MessageSchema = lazyMessageSchema(requireZod, toolCallSchema);

const parsers: MessageParsers = messageParsers(messageSchema);

/**
 * Validates one persisted message record (a session-file line, a provider reply converted to our
 * model) and returns it typed. Throws `ValidationError` whose `path` and message name the
 * offending field (`messages[3].tool_calls[0].id: …`); cyclic values are reported the same way
 * instead of overflowing the stack. Unknown extra keys (`timestamp`, `_meta`) are kept. Never
 * mutates `record`; `where` prefixes paths (e.g. `messages[3]`).
 */
export const parseMessage: MessageParsers['parseMessage'] = (record, where) => parsers.parseMessage(record, where);

/** {@link parseMessage} over a list; the error path starts with the index (`[3].role`). */
export const parseMessages: MessageParsers['parseMessages'] = (records) => parsers.parseMessages(records);
