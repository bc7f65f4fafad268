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
  replayedRow,
} from './message-failure.js';
export type { MessageFailure, MessageFailureKind, StoredFailure } from './message-failure.js';
