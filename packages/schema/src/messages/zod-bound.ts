// The message schemas and parsers bound to a static `import { z } from 'zod'`: what the main
// entry exports, so every bundler sees zod (and drops it when nothing here is used: each export
// is a pure call). The Node entry binds its own, requiring zod on first use (src/node/).
import { z } from 'zod';
import { lazyMessageSchema, lazyToolCallSchema, type MessageSchema, type ToolCallSchema } from './message.js';
import { messageParsers, type MessageParsers } from './parse-message.js';

const zod = (): typeof z => z;

/** zod schema of one tool call as persisted (built on first use). */
export const toolCallSchema: ToolCallSchema = /* @__PURE__ */ lazyToolCallSchema(zod);

/** zod schema of one persisted message record; errors name the wrong field (built on first use). */
export const messageSchema: MessageSchema = /* @__PURE__ */ lazyMessageSchema(zod, toolCallSchema);

const parsers: MessageParsers = /* @__PURE__ */ messageParsers(messageSchema);

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
