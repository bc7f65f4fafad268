import { ConfigurationError, ValidationError } from '@nanobot/schema';
import type { InboundMessage } from './bus/bus-messages.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the parts of a run spec a programmer can get wrong, so a misassembled stack fails
 * with a clear `ConfigurationError` at the start of `run()` instead of deep inside a turn.
 */
export function validateRunSpec(spec: unknown): void {
  if (!isObject(spec)) throw new ConfigurationError('AgentRunner.run: spec must be an object');
  const messages = spec.initialMessages;
  if (!Array.isArray(messages)) throw new ConfigurationError('AgentRunner.run: initialMessages must be an array of messages');
  messages.forEach((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string') throw new ConfigurationError(`AgentRunner.run: initialMessages[${i}] must be a message object with a string role`);
  });
  const provider = spec.provider;
  if (!isObject(provider) || typeof provider.stream !== 'function' || typeof provider.chat !== 'function') {
    throw new ConfigurationError('AgentRunner.run: provider must implement LLMProvider (chat and stream)');
  }
  const tools = spec.tools;
  if (!isObject(tools) || !['definitions', 'get', 'prepareCall', 'execute'].every((k) => typeof tools[k] === 'function')) {
    throw new ConfigurationError('AgentRunner.run: tools must be a ToolRegistry (definitions, get, prepareCall, execute)');
  }
  const max = spec.maxIterations;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max >= 1)) {
    throw new ConfigurationError(`AgentRunner.run: maxIterations must be an integer >= 1, got ${String(max)}`);
  }
  if (spec.govern !== undefined && typeof spec.govern !== 'function') throw new ConfigurationError('AgentRunner.run: govern must be a function');
  const calibrator = spec.calibrator as { observe?: unknown; calibrate?: unknown } | null | undefined;
  if (calibrator !== undefined && calibrator !== null && (typeof calibrator.observe !== 'function' || typeof calibrator.calibrate !== 'function')) {
    throw new ConfigurationError('AgentRunner.run: calibrator must have observe() and calibrate() (createUsageCalibrator from @nanobot/governor)');
  }
  const facts = spec.modelFacts as { lookup?: unknown } | undefined;
  if (facts !== undefined && (!isObject(facts) || typeof facts.lookup !== 'function')) {
    throw new ConfigurationError('AgentRunner.run: modelFacts must have lookup() (ModelFactsCache from @nanobot/providers)');
  }
}

/** Rejects inbound messages a channel adapter built wrongly (clear `ValidationError`, nothing half-processed). */
export function validateInbound(message: unknown): asserts message is InboundMessage {
  if (!isObject(message)) throw new ValidationError('inbound message must be an object');
  for (const key of ['channel', 'chatId', 'content'] as const) {
    if (typeof message[key] !== 'string') throw new ValidationError(`inbound message ${key} must be a string, got ${typeof message[key]}`, [key]);
  }
  if (message.channel === '' || message.chatId === '') throw new ValidationError('inbound message channel and chatId must not be empty', [message.channel === '' ? 'channel' : 'chatId']);
  if (message.senderId !== undefined && typeof message.senderId !== 'string') throw new ValidationError('inbound message senderId must be a string', ['senderId']);
  if (message.media !== undefined && !(Array.isArray(message.media) && message.media.every((m) => typeof m === 'string'))) {
    throw new ValidationError('inbound message media must be a list of paths', ['media']);
  }
}
