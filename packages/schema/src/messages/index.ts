/** The message model: message and content-part types, their zod schemas, and parsing of stored records. */
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
} from './message.js';
export { messageSchema, toolCallSchema } from './message.js';
export { parseMessage, parseMessages } from './parse-message.js';
