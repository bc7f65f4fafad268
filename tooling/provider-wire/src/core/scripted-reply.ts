// The answer a server gives to a legal request, in neutral form: each server renders it in its
// own wire format, whole or streamed.

/** One tool call of a scripted answer. */
export interface ScriptedToolCall {
  /** Call id; each server makes one in its provider's format when absent. */
  id?: string;
  name: string;
  /** Arguments as an object (servers serialise where their wire carries a string). */
  input: Record<string, unknown>;
}

/** What the model "says". Every field is optional; the default reply is `{ text: 'ok' }`. */
export interface ScriptedReply {
  text?: string;
  /** Reasoning text (Anthropic thinking, Bedrock reasoningText, Gemini thought, DeepSeek reasoning_content, Responses summary). */
  reasoning?: string;
  /** Sign the reasoning (and Gemini function calls) with the server's verifiable signature (default true). */
  signed?: boolean;
  toolCalls?: ScriptedToolCall[];
  /** Usage to report (default: input estimated from the body, output from the reply). */
  usage?: { inputTokens?: number; outputTokens?: number };
}

/** The reply servers give when nothing is queued. */
export const DEFAULT_REPLY: ScriptedReply = { text: 'ok' };

/** Crude token estimate (JSON characters / 4) for usage fields and count endpoints of the stand-ins. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Output tokens of a reply, estimated. */
export function replyTokens(reply: ScriptedReply): number {
  return reply.usage?.outputTokens ?? estimateTokens([reply.text ?? '', reply.reasoning ?? '', ...(reply.toolCalls ?? []).map((c) => c.name + JSON.stringify(c.input))].join(''));
}
