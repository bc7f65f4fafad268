/** The message bus between channels and the agent: message shapes, the `AgentBus` port, the in-memory `MessageBus`. */
export { inboundSessionKey, isUserInput } from './bus-messages.js';
export type { InboundMessage, OutboundMessage } from './bus-messages.js';
export type { AgentBus } from './agent-bus.js';
export type { TurnOutcome } from './turn-outcome.js';
export { MessageBus } from './message-bus.js';
