/** A message coming into the agent from a channel (or from a subagent, on channel `system`). */
export interface InboundMessage {
  channel: string;
  senderId: string;
  chatId: string;
  content: string;
  timestamp?: string;
  /** Local paths or URLs of attachments. */
  media?: string[];
  metadata?: Record<string, unknown>;
  /** Routes the message to this session instead of `<channel>:<chatId>`. */
  sessionKeyOverride?: string;
  /** `user` or `system`; by default `system` exactly when the channel is `system`. */
  inputRole?: 'user' | 'system';
}

/** A message going out of the agent to a channel's chat. */
export interface OutboundMessage {
  channel: string;
  chatId: string;
  content: string;
  replyTo?: string;
  media?: string[];
  buttons?: string[][];
  metadata?: Record<string, unknown>;
  /** Internal UI semantics, e.g. `message_tool` for a delivery made by the `message` tool. */
  event?: string;
  /** Session that produced the message. */
  sessionKey?: string;
}

/** `<channel>:<chatId>` unless overridden. */
export function inboundSessionKey(message: InboundMessage): string {
  return message.sessionKeyOverride ?? `${message.channel}:${message.chatId}`;
}

/** True for messages typed by a person (not subagent results or internal events). */
export function isUserInput(message: InboundMessage): boolean {
  return message.inputRole !== undefined ? message.inputRole === 'user' : message.channel !== 'system';
}
