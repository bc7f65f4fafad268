import { AsyncQueue } from '../async-queue.js';
import type { AgentBus } from './agent-bus.js';
import type { InboundMessage, OutboundMessage } from './bus-messages.js';

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
