/** The message model: message and content-part types (their zod schemas and parsers are bound per entry). */
export type {
  Message,
  MessageContent,
  ContentPart,
  TextPart,
  ImagePart,
  ToolCall,
  ThinkingBlock,
  Role,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  MessageSchema,
  ToolCallSchema,
} from './message.js';
// `messageSchema`, `toolCallSchema`, `parseMessage` and `parseMessages` are bound to a zod import
// by each entry: ./zod-bound.ts (main entry), ../node/zod-bound.ts (Node entry).
