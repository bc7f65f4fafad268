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
export {
  FAILURE_FIELD,
  FAILURE_DETAIL_MAX_CHARS,
  TURN_INTERRUPTED_NOTE,
  MODEL_ERROR_NOTE,
  TOOL_INTERRUPTED_NOTE,
  LEGACY_FAILURE_TEXTS,
  failureOf,
  turnFailureRow,
  toolFailureRow,
  failureReplayRow,
  isFailureNote,
  replayFailures,
} from './message-failure.js';
export type { MessageFailure, MessageFailureKind, StoredFailure } from './message-failure.js';
