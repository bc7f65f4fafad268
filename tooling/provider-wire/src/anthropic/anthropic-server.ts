// A local Anthropic Messages API: /v1/messages (JSON and SSE), /v1/messages/count_tokens and
// /v1/models, checking every request against ANTHROPIC_RULES and answering a broken rule with
// the API's 400 `invalid_request_error`.
import type { ServerResponse } from 'node:http';
import { wireSignature } from '../core/signatures.js';
import { estimateTokens, replyTokens, type ScriptedReply } from '../core/scripted-reply.js';
import { isRec, type Json } from '../core/wire-rule.js';
import { sendJson, startSse, WireServer, writeSse, type WireRequest, type WireRoute } from '../core/wire-server.js';
import { checkAnthropicMessages } from './check-anthropic.js';

/** A model `/v1/models` lists, with the limits it publishes. */
export interface AnthropicListedModel {
  id: string;
  displayName?: string;
  /** `max_input_tokens` (the context window). */
  maxInputTokens?: number;
  /** `max_tokens` (the longest reply). */
  maxTokens?: number;
}

const DEFAULT_MODELS: AnthropicListedModel[] = [
  { id: 'claude-sonnet-4-5-20250929', displayName: 'Claude Sonnet 4.5', maxInputTokens: 200_000, maxTokens: 64_000 },
  { id: 'claude-opus-4-7', displayName: 'Claude Opus 4.7', maxInputTokens: 1_000_000, maxTokens: 128_000 },
];

/** Writes the API's error body. */
export function sendAnthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_local' });
}

function authorized(req: WireRequest, res: ServerResponse): boolean {
  const key = req.headers['x-api-key'];
  const bearer = typeof req.headers.authorization === 'string' && /^Bearer \S+/.test(req.headers.authorization);
  if ((typeof key !== 'string' || key === '') && !bearer) {
    sendAnthropicError(res, 401, 'authentication_error', 'x-api-key header is required');
    return false;
  }
  if (typeof req.headers['anthropic-version'] !== 'string') {
    sendAnthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    return false;
  }
  return true;
}

function contentOf(reply: ScriptedReply, server: WireServer): Json[] {
  const blocks: Json[] = [];
  if (reply.reasoning !== undefined) blocks.push({ type: 'thinking', thinking: reply.reasoning, signature: reply.signed === false ? '' : wireSignature('anthropic-thinking', reply.reasoning) });
  if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
  for (const c of reply.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id ?? `toolu_local${String(server.nextSeq()).padStart(6, '0')}`, name: c.name, input: c.input });
  return blocks;
}

async function messages(req: WireRequest, res: ServerResponse, server: WireServer): Promise<void> {
  if (!authorized(req, res)) return;
  const body = isRec(req.body) ? req.body : undefined;
  if (body) req.violations = checkAnthropicMessages(body);
  const raw = server.takeRawHandler();
  if (raw) return raw(req, res);
  if (!body) return sendAnthropicError(res, 400, 'invalid_request_error', 'There was an issue with the format of the request body (invalid JSON).');
  if (req.violations.length > 0) return sendAnthropicError(res, 400, 'invalid_request_error', req.violations[0].message);
  const reply = server.takeReply();
  const content = contentOf(reply, server);
  const stop = (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: reply.usage?.inputTokens ?? estimateTokens([body.system, body.messages]), output_tokens: replyTokens(reply) };
  const message = { id: `msg_local${server.nextSeq()}`, type: 'message', role: 'assistant', model: String(body.model), content, stop_reason: stop, stop_sequence: null, usage };
  if (body.stream !== true) return sendJson(res, 200, message);
  startSse(res);
  await writeSse(res, { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }, 'message_start');
  for (const [index, block] of content.entries()) {
    if (block.type === 'thinking') {
      await writeSse(res, { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }, 'content_block_start');
      await writeSse(res, { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }, 'content_block_delta');
      if (block.signature) await writeSse(res, { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }, 'content_block_delta');
    } else if (block.type === 'text') {
      await writeSse(res, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start');
      const text = String(block.text);
      const cut = Math.ceil(text.length / 2);
      for (const piece of [text.slice(0, cut), text.slice(cut)]) if (piece) await writeSse(res, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta');
    } else {
      await writeSse(res, { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }, 'content_block_start');
      await writeSse(res, { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }, 'content_block_delta');
    }
    await writeSse(res, { type: 'content_block_stop', index }, 'content_block_stop');
  }
  await writeSse(res, { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }, 'message_delta');
  await writeSse(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

function countTokens(req: WireRequest, res: ServerResponse): void {
  if (!authorized(req, res)) return;
  const body = isRec(req.body) ? req.body : {};
  // count_tokens takes no max_tokens; judge everything else as /v1/messages would.
  req.violations = checkAnthropicMessages(body, { wholeBody: false });
  if (req.violations.length > 0) return sendAnthropicError(res, 400, 'invalid_request_error', req.violations[0].message);
  sendJson(res, 200, { input_tokens: estimateTokens([body.system, body.tools, body.messages]) });
}

function modelInfo(m: AnthropicListedModel): Json {
  return { type: 'model', id: m.id, display_name: m.displayName ?? m.id, created_at: '2025-01-01T00:00:00Z', ...(m.maxInputTokens ? { max_input_tokens: m.maxInputTokens } : {}), ...(m.maxTokens ? { max_tokens: m.maxTokens } : {}) };
}

/**
 * Starts a local Messages API on 127.0.0.1 (`baseURL: server.url` for `@anthropic-ai/sdk`,
 * `${server.url}/v1` for `@ai-sdk/anthropic`). `models` sets what `/v1/models` publishes.
 */
export async function startAnthropicServer(options: { models?: AnthropicListedModel[] } = {}): Promise<WireServer> {
  const models = options.models ?? DEFAULT_MODELS;
  const routes: WireRoute[] = [
    { method: 'POST', pattern: /^\/v1\/messages$/, name: 'messages', handle: messages },
    { method: 'POST', pattern: /^\/v1\/messages\/count_tokens$/, name: 'count_tokens', handle: countTokens },
    { method: 'GET', pattern: /^\/v1\/models$/, name: 'models', handle: (req, res) => (authorized(req, res) ? sendJson(res, 200, { data: models.map(modelInfo), has_more: false, first_id: models[0]?.id ?? null, last_id: models.at(-1)?.id ?? null }) : undefined) },
    {
      method: 'GET',
      pattern: /^\/v1\/models\/(?<model>[^/]+)$/,
      name: 'models.get',
      handle: (req, res) => {
        if (!authorized(req, res)) return;
        const m = models.find((x) => x.id === req.params.model);
        if (!m) return sendAnthropicError(res, 404, 'not_found_error', `model: ${req.params.model}`);
        sendJson(res, 200, modelInfo(m));
      },
    },
  ];
  return new WireServer('anthropic', routes, (req, res) => sendAnthropicError(res, 404, 'not_found_error', `Not found: ${req.method} ${req.path}`)).start();
}
