import type { InboundMessage, OutboundMessage } from './bus-messages.js';
import type { TurnOutcome } from './turn-outcome.js';

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
