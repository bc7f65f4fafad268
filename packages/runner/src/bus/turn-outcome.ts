import type { AgentRunResult } from '../agent-runner.js';
import type { OutboundMessage } from './bus-messages.js';

/** How the turn that handled a submitted message ended. */
export interface TurnOutcome {
  sessionKey: string;
  /** The runner's result; null for commands and for messages dropped by `/stop`. */
  result: AgentRunResult | null;
  /** What the turn sent back to the message's chat (null when suppressed, aborted or dropped). */
  reply: OutboundMessage | null;
  /** Set when the turn failed with an exception (e.g. its session could not be saved). */
  error?: unknown;
}
