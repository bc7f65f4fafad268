import { AsyncQueue } from './async-queue.js';
import type { TurnOutcome } from './agent-loop.js';

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

/**
 * What `AgentLoop`, `SubagentManager` and `createAgent` need from a message bus. The in-memory
 * {@link MessageBus} implements it for one process; `PostgresMessageBus` (@nanobot/postgres)
 * implements it across processes, which turns every loop started on it into a worker.
 */
export interface AgentBus {
  /** Queues a message for the agent (must not throw for a valid message; delivery may be asynchronous). */
  publishInbound(message: InboundMessage): void;
  /** Waits for the next inbound message; rejects when `signal` aborts. */
  consumeInbound(signal?: AbortSignal): Promise<InboundMessage>;
  /** Sends a message towards the channels (must not throw; delivery may be asynchronous). */
  publishOutbound(message: OutboundMessage): void;
  /** Waits for the next outbound message; rejects when `signal` aborts. */
  consumeOutbound(signal?: AbortSignal): Promise<OutboundMessage>;
  /** Calls `listener` for every later outbound message this bus publishes or delivers; returns an unsubscribe function. */
  onOutbound(listener: (message: OutboundMessage) => void): () => void;
  /**
   * Optional acknowledgement: when present, `AgentLoop.start()` calls it (not awaited, must not
   * throw) once the turn of a message it took from `consumeInbound` has saved and responded,
   * with the same message object. `outcome.error` is set when the turn failed, so a durable bus
   * can retry the message instead of marking it done.
   */
  settleInbound?(message: InboundMessage, outcome: TurnOutcome): void;
}

/**
 * Two unbounded FIFO queues between channels and the agent loop. Nothing is dropped; consumers
 * may wait with an AbortSignal. Outbound listeners (if any) see every outbound message as well.
 */
export class MessageBus implements AgentBus {
  readonly #inbound = new AsyncQueue<InboundMessage>();
  readonly #outbound = new AsyncQueue<OutboundMessage>();
  readonly #listeners = new Set<(message: OutboundMessage) => void>();

  /** Queues a message for the agent. */
  publishInbound(message: InboundMessage): void {
    this.#inbound.push(message);
  }

  /** Waits for the next inbound message. */
  consumeInbound(signal?: AbortSignal): Promise<InboundMessage> {
    return this.#inbound.take(signal);
  }

  /** Queues a message for the channels and tells the listeners (synchronously; they must not throw). */
  publishOutbound(message: OutboundMessage): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch {
        // a broken listener must not lose the message for the queue consumer
      }
    }
    this.#outbound.push(message);
  }

  /** Waits for the next outbound message. */
  consumeOutbound(signal?: AbortSignal): Promise<OutboundMessage> {
    return this.#outbound.take(signal);
  }

  /** Takes every outbound message queued right now (handy in tests and one-shot runs). */
  drainOutbound(): OutboundMessage[] {
    return this.#outbound.drain();
  }

  /** Calls `listener` for every later outbound message; returns an unsubscribe function. */
  onOutbound(listener: (message: OutboundMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Inbound messages waiting. */
  get inboundSize(): number {
    return this.#inbound.size;
  }

  /** Outbound messages waiting. */
  get outboundSize(): number {
    return this.#outbound.size;
  }
}
