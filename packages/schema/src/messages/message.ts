import type { z as Z } from 'zod';

/** A text part of a multimodal message content list. */
export interface TextPart {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

/** An image part (OpenAI `image_url` shape); `url` may be a data: URL. */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Any content part: text, image, or a provider-specific block kept as-is. */
export type ContentPart = TextPart | ImagePart | { type: string; [key: string]: unknown };

/** Message content as the wire allows it: text, a list of parts, or nothing. */
export type MessageContent = string | ContentPart[] | null;

/** An assistant tool call in the OpenAI chat shape; `arguments` is a JSON string on the wire. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** An Anthropic thinking block carried on an assistant message for replay. */
export interface ThinkingBlock {
  type: string;
  thinking?: string;
  signature?: string;
  [key: string]: unknown;
}

/**
 * Roles of the OpenAI chat model used throughout nanobot. `developer` is OpenAI's newer name
 * for instructions: the governor treats it like `system`.
 */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/**
 * One chat message, exactly as persisted in a nanobot session file (snake_case wire fields).
 * Unknown extra keys (`timestamp`, `_meta`, …) are kept as-is.
 */
export interface Message {
  role: Role | (string & {});
  content?: MessageContent | undefined;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string | null;
  thinking_blocks?: ThinkingBlock[] | null;
  timestamp?: string;
  [key: string]: unknown;
}

/** A system message. */
export type SystemMessage = Message & { role: 'system'; content: string | ContentPart[] };
/** A user message. */
export type UserMessage = Message & { role: 'user' };
/** An assistant message, possibly with tool calls. */
export type AssistantMessage = Message & { role: 'assistant' };
/** A tool result answering `tool_call_id`. */
export type ToolMessage = Message & { role: 'tool'; tool_call_id: string };

/** The zod namespace (`z`) the schemas are built with. */
export type ZodNamespace = typeof Z;

/** A stand-in that builds the real value on first use and then forwards everything to it. */
function lazy<T extends object>(build: () => T): T {
  let real: T | undefined;
  const target = (): T => (real ??= build());
  return new Proxy({} as T, {
    get(_t, key) {
      const value: unknown = Reflect.get(target(), key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target()) : value;
    },
    has: (_t, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_t, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

function buildToolCallSchema(z: ZodNamespace) {
  return z
    .object({
      id: z.string(),
      type: z.literal('function'),
      function: z.object({ name: z.string(), arguments: z.string() }).passthrough(),
    })
    .passthrough();
}

function buildMessageSchema(z: ZodNamespace, toolCallSchema: ToolCallSchema) {
  const contentPartSchema = z
    .object({ type: z.string() })
    .passthrough()
    .superRefine((part, ctx) => {
      if (part.type === 'text' && typeof (part as { text?: unknown }).text !== 'string') {
        ctx.addIssue({ code: 'custom', message: 'a text part needs a string "text"', path: ['text'] });
      }
    });
  return z
    .object({
      role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
      content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
      name: z.string().optional(),
      tool_calls: z.array(toolCallSchema).optional(),
      tool_call_id: z.string().optional(),
      reasoning_content: z.string().nullable().optional(),
      thinking_blocks: z.array(z.object({ type: z.string() }).passthrough()).nullable().optional(),
      timestamp: z.string().optional(),
    })
    .passthrough()
    .superRefine((msg, ctx) => {
      if (msg.role === 'tool' && typeof msg.tool_call_id !== 'string') {
        ctx.addIssue({ code: 'custom', message: 'a tool message needs a string tool_call_id', path: ['tool_call_id'] });
      }
      if (msg.tool_calls !== undefined && msg.role !== 'assistant') {
        ctx.addIssue({ code: 'custom', message: 'only assistant messages carry tool_calls', path: ['tool_calls'] });
      }
    });
}

/** The zod schema of one persisted tool call. */
export type ToolCallSchema = ReturnType<typeof buildToolCallSchema>;
/** The zod schema of one persisted message record. */
export type MessageSchema = ReturnType<typeof buildMessageSchema>;

// zod costs ~100 ms to import, more than the rest of this package together, and only parsing
// records needs it: the schemas are lazy views, built on first use with the zod namespace that
// `zod()` returns (a static import for bundlers, a require on first use in the Node entry). zod
// keeps its registries on globalThis, so mixing with the caller's zod is safe.

/** The tool-call schema, built with `zod()` on first use. Pure until used. */
export function lazyToolCallSchema(zod: () => ZodNamespace): ToolCallSchema {
  return lazy(() => buildToolCallSchema(zod()));
}

/** The message schema around `toolCallSchema`, built with `zod()` on first use. Pure until used. */
export function lazyMessageSchema(zod: () => ZodNamespace, toolCallSchema: ToolCallSchema): MessageSchema {
  return lazy(() => buildMessageSchema(zod(), toolCallSchema));
}
