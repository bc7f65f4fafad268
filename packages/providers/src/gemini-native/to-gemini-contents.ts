import type { Message, ToolDefinition } from '@nanobot/schema';
import { toolArgumentsObjectForReplay } from '../tool-arguments.js';

/** One part of a Gemini content. */
export type GeminiPart = Record<string, unknown>;

/** A Gemini `Content` (`role` `user` or `model`). */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** A `generateContent` request body (the part `countTokens` takes as `generateContentRequest`). */
export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: { functionDeclarations: Record<string, unknown>[] }[];
}

/**
 * Google's documented stand-in signature for a function call of the current turn whose own
 * signature is not in the history (a call made by another model, or through a gateway).
 */
export const GEMINI_SKIP_SIGNATURE = 'skip_thought_signature_validator';

function textOfContent(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
}

/** User content parts: text, `data:` images inline, other images as a placeholder (their bytes are not here to count). */
function userParts(content: Message['content']): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const parts: GeminiPart[] = [];
  for (const part of content as Record<string, unknown>[]) {
    if (typeof part.text === 'string' && part.text !== '') parts.push({ text: part.text });
    const image = part.image_url as { url?: unknown } | string | undefined;
    const url = typeof image === 'string' ? image : typeof image?.url === 'string' ? image.url : undefined;
    if (url === undefined) continue;
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    parts.push(data ? { inlineData: { mimeType: data[1], data: data[2] } } : { text: '[image]' });
  }
  return parts;
}

/** The thought signature the OpenAI-compatible endpoint returned on a tool call (`extra_content.google.thought_signature`). */
function signatureOf(call: Record<string, unknown>): string | undefined {
  const google = (call.extra_content as { google?: { thought_signature?: unknown } } | undefined)?.google;
  return typeof google?.thought_signature === 'string' ? google.thought_signature : undefined;
}

/**
 * An OpenAI-style message list (as sent to Gemini's OpenAI-compatible endpoint) in the native
 * Gemini shape, for `countTokens`: system messages → `systemInstruction`, assistant turns →
 * `model` contents with `functionCall` parts (thought signatures kept byte for byte, Google's
 * documented placeholder on a current-turn call that lost its own), tool results →
 * `functionResponse` parts in the `user` turn after their calls, same-role neighbours merged so
 * user and model alternate, empty text dropped. Tools become `functionDeclarations` with their
 * JSON Schema as `parametersJsonSchema`. Pure.
 */
export function toGeminiRequest(messages: readonly Message[], tools: readonly ToolDefinition[] = []): GeminiRequest {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const names = new Map<string, string>();
  const push = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts: [...parts] });
  };
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOfContent(message.content ?? null);
      if (text !== '') system.push({ text });
    } else if (message.role === 'user') {
      push('user', userParts(message.content ?? null));
    } else if (message.role === 'assistant') {
      const parts: GeminiPart[] = [];
      const text = textOfContent(message.content ?? null);
      if (text !== '') parts.push({ text });
      for (const call of (message.tool_calls ?? []) as unknown as Record<string, unknown>[]) {
        const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown };
        const name = typeof fn.name === 'string' ? fn.name : '';
        if (typeof call.id === 'string') names.set(call.id, name);
        const signature = signatureOf(call);
        parts.push({ functionCall: { name, args: toolArgumentsObjectForReplay(fn.arguments) }, ...(signature ? { thoughtSignature: signature } : {}) });
      }
      push('model', parts);
    } else if (message.role === 'tool') {
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
      const name = names.get(id) ?? (typeof message.name === 'string' ? message.name : '');
      push('user', [{ functionResponse: { name, response: { result: textOfContent(message.content ?? null) } } }]);
    }
  }
  // The current turn's steps must each carry a signature on their first call (Gemini 3).
  let turnStart = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && c.parts.some((p) => !('functionResponse' in p))) turnStart = i + 1;
  });
  for (const content of contents.slice(turnStart)) {
    const first = content.role === 'model' ? content.parts.find((p) => 'functionCall' in p) : undefined;
    if (first && typeof first.thoughtSignature !== 'string') first.thoughtSignature = GEMINI_SKIP_SIGNATURE;
  }
  const request: GeminiRequest = { contents };
  if (system.length > 0) request.systemInstruction = { parts: system };
  if (tools.length > 0) {
    request.tools = [{ functionDeclarations: tools.map((t) => ({ name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), ...(t.function.parameters ? { parametersJsonSchema: t.function.parameters } : {}) })) }];
  }
  return request;
}
