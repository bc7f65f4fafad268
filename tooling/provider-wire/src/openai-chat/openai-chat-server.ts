// A local chat-completions server for OpenAI and the vendors that speak its wire (Azure OpenAI,
// Mistral, DeepSeek, OpenRouter, Gemini's OpenAI-compatible endpoint): JSON and SSE streaming,
// each vendor's rules, each vendor's error body, and a models list.
import type { ServerResponse } from 'node:http';
import { geminiCallSignature } from '../core/gemini-signature.js';
import { estimateTokens, replyTokens, type ScriptedReply } from '../core/scripted-reply.js';
import { isRec, type Json, type WireViolation } from '../core/wire-rule.js';
import { sendJson, startSse, WireServer, writeSse, type WireRequest, type WireRoute } from '../core/wire-server.js';
import { checkOpenAIChat, type ChatVendor } from './check-openai-chat.js';
import { openRouterEncryptedData, openRouterProviderName, openRouterTextSignature } from './openrouter-rules.js';

/** A model a server lists (`GET …/models`). */
export interface ListedModel {
  id: string;
  /** Context window (OpenRouter's `context_length`). */
  contextLength?: number;
  /** Longest reply (OpenRouter's `top_provider.max_completion_tokens`). */
  maxOutput?: number;
}

/** Options of {@link startOpenAIChatServer}. */
export interface OpenAIChatServerOptions {
  /** Whose rules and error bodies (default `openai`). */
  vendor?: ChatVendor;
  /** Models listed by `GET …/models` (default: one per vendor). */
  models?: ListedModel[];
}

const DEFAULT_MODELS: Record<ChatVendor, ListedModel[]> = {
  openai: [{ id: 'gpt-4.1', contextLength: 1_047_576, maxOutput: 32_768 }],
  azure: [{ id: 'gpt-4.1', contextLength: 1_047_576, maxOutput: 32_768 }],
  mistral: [{ id: 'mistral-large-latest', contextLength: 131_072 }],
  deepseek: [{ id: 'deepseek-chat', contextLength: 131_072 }, { id: 'deepseek-reasoner', contextLength: 131_072 }],
  openrouter: [{ id: 'anthropic/claude-sonnet-4.5', contextLength: 1_000_000, maxOutput: 64_000 }, { id: 'google/gemini-3-pro-preview', contextLength: 1_048_576, maxOutput: 65_536 }],
  'gemini-openai': [{ id: 'gemini-3-pro-preview', contextLength: 1_048_576, maxOutput: 65_536 }],
};

/** The HTTP body a vendor answers a broken rule with. */
export function chatErrorBody(vendor: ChatVendor, v: WireViolation, model: string): unknown {
  switch (vendor) {
    case 'mistral':
      return { object: 'error', message: v.message, type: v.type ?? 'invalid_request_error', param: null, code: v.code ?? null };
    case 'deepseek':
      return { error: { message: v.message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } };
    case 'gemini-openai':
      return [{ error: { code: 400, message: v.message, status: 'INVALID_ARGUMENT' } }];
    case 'openrouter': {
      const provider = openRouterProviderName(model);
      const raw = provider === 'Anthropic'
        ? { type: 'error', error: { type: 'invalid_request_error', message: v.message } }
        : provider === 'Google AI Studio'
          ? { error: { code: 400, message: v.message, status: 'INVALID_ARGUMENT' } }
          : { error: { message: v.message, type: 'invalid_request_error', param: v.path, code: v.code ?? null } };
      return { error: { message: 'Provider returned error', code: 400, metadata: { raw: JSON.stringify(raw), provider_name: provider } } };
    }
    default:
      return { error: { message: v.message, type: 'invalid_request_error', param: v.path, code: v.code ?? null } };
  }
}

function authError(vendor: ChatVendor, res: ServerResponse): void {
  if (vendor === 'azure') {
    sendJson(res, 401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } });
  } else if (vendor === 'openrouter') sendJson(res, 401, { error: { message: 'No auth credentials found', code: 401 } });
  else if (vendor === 'mistral') sendJson(res, 401, { message: 'Unauthorized', request_id: 'req_local' });
  else sendJson(res, 401, { error: { message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", type: 'invalid_request_error', param: null, code: null } });
}

function authorized(vendor: ChatVendor, req: WireRequest): boolean {
  const bearer = typeof req.headers.authorization === 'string' && /^Bearer \S+/.test(req.headers.authorization);
  if (vendor === 'azure') return bearer || (typeof req.headers['api-key'] === 'string' && req.headers['api-key'] !== '');
  return bearer;
}

function callId(vendor: ChatVendor, seq: number): string {
  if (vendor === 'mistral') return `c${seq.toString(36).padStart(8, '0')}`.slice(0, 9);
  if (vendor === 'gemini-openai') return `function-call-${seq}`;
  return `call_${seq.toString(36).padStart(24, '0')}`;
}

/** The assistant message of a scripted reply, in the vendor's chat shape. */
function replyMessage(vendor: ChatVendor, reply: ScriptedReply, model: string, server: WireServer): Json {
  const calls = (reply.toolCalls ?? []).map((c, i) => {
    const call: Json = { id: c.id ?? callId(vendor, server.nextSeq()), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } };
    if (vendor === 'gemini-openai' && i === 0 && reply.signed !== false) call.extra_content = { google: { thought_signature: geminiCallSignature(c.name, c.input) } };
    return call;
  });
  const message: Json = { role: 'assistant', content: reply.text ?? (calls.length > 0 ? null : '') };
  if (calls.length > 0) message.tool_calls = calls;
  if (reply.reasoning !== undefined && vendor === 'deepseek') message.reasoning_content = reply.reasoning;
  if (vendor === 'openrouter') {
    const details: Json[] = [];
    if (reply.reasoning !== undefined) {
      message.reasoning = reply.reasoning;
      details.push({ type: 'reasoning.text', text: reply.reasoning, ...(reply.signed === false ? {} : { signature: openRouterTextSignature(reply.reasoning) }), format: model.startsWith('anthropic/') ? 'anthropic-claude-v1' : 'unknown', index: 0 });
    }
    if (model.startsWith('google/') && calls[0] && reply.signed !== false) details.push({ type: 'reasoning.encrypted', data: openRouterEncryptedData(String(calls[0].id)), id: calls[0].id, format: 'google-gemini-v1', index: details.length });
    if (details.length > 0) message.reasoning_details = details;
  }
  return message;
}

async function chat(vendor: ChatVendor, req: WireRequest, res: ServerResponse, server: WireServer): Promise<void> {
  if (!authorized(vendor, req)) return authError(vendor, res);
  if (vendor === 'azure' && req.route === 'azure.deployments' && !req.query.get('api-version')) return sendJson(res, 404, { error: { code: '404', message: 'Resource not found' } });
  const body = isRec(req.body) ? req.body : undefined;
  const raw = server.takeRawHandler();
  if (body) req.violations = checkOpenAIChat(body, { vendor });
  if (raw) return raw(req, res);
  if (!body) return sendJson(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
  const model = typeof body.model === 'string' ? body.model : (req.params.deployment ?? '');
  if (req.violations.length > 0) return sendJson(res, 400, chatErrorBody(vendor, req.violations[0], model));
  const reply = server.takeReply();
  const message = replyMessage(vendor, reply, model, server);
  const finish = Array.isArray(message.tool_calls) ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: reply.usage?.inputTokens ?? estimateTokens(body.messages), completion_tokens: replyTokens(reply) };
  const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  const base = { id: `chatcmpl-local${server.nextSeq()}`, created: Math.floor(Date.now() / 1000), model };
  if (body.stream !== true) {
    return sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage: fullUsage });
  }
  startSse(res);
  const chunk = (delta: Json, finishReason: string | null = null): Json => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });
  await writeSse(res, chunk({ role: 'assistant', content: '' }));
  if (typeof message.reasoning_content === 'string') await writeSse(res, chunk({ reasoning_content: message.reasoning_content }));
  if (typeof message.reasoning === 'string') await writeSse(res, chunk({ reasoning: message.reasoning, reasoning_details: message.reasoning_details }));
  const text = typeof message.content === 'string' ? message.content : '';
  for (const piece of text.length > 1 ? [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))] : [text]) if (piece) await writeSse(res, chunk({ content: piece }));
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
  for (const [index, call] of calls.entries()) {
    const fn = call.function as Json;
    await writeSse(res, chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: fn.name, arguments: '' }, ...(call.extra_content ? { extra_content: call.extra_content } : {}) }] }));
    await writeSse(res, chunk({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }));
  }
  if (typeof message.reasoning !== 'string' && Array.isArray(message.reasoning_details)) await writeSse(res, chunk({ reasoning_details: message.reasoning_details }));
  await writeSse(res, chunk({}, finish));
  if (isRec(body.stream_options) && body.stream_options.include_usage === true) await writeSse(res, { ...base, object: 'chat.completion.chunk', choices: [], usage: fullUsage });
  await writeSse(res, '[DONE]');
  res.end();
}

function listModels(vendor: ChatVendor, models: ListedModel[], req: WireRequest, res: ServerResponse): void {
  if (!authorized(vendor, req) && vendor !== 'openrouter') return authError(vendor, res);
  const data = models.map((m) => vendor === 'openrouter'
    ? { id: m.id, name: m.id, context_length: m.contextLength ?? null, top_provider: { context_length: m.contextLength ?? null, max_completion_tokens: m.maxOutput ?? null } }
    : { id: m.id, object: 'model', created: 0, owned_by: vendor });
  sendJson(res, 200, vendor === 'openrouter' ? { data } : { object: 'list', data });
}

/**
 * Starts a local chat-completions server on 127.0.0.1 for `vendor`. Base URLs: any prefix works
 * (`${url}/v1`, `${url}/api/v1`, `${url}/v1beta/openai`), Azure on `${url}/openai` (deployment
 * routes with `api-version`, or the v1 route).
 */
export async function startOpenAIChatServer(options: OpenAIChatServerOptions = {}): Promise<WireServer> {
  const vendor = options.vendor ?? 'openai';
  const models = options.models ?? DEFAULT_MODELS[vendor];
  const routes: WireRoute[] = vendor === 'azure'
    ? [
        { method: 'POST', pattern: /^\/openai\/deployments\/(?<deployment>[^/]+)\/chat\/completions$/, name: 'azure.deployments', handle: (req, res, s) => chat(vendor, req, res, s) },
        { method: 'POST', pattern: /^\/openai\/v1\/chat\/completions$/, name: 'chat.completions', handle: (req, res, s) => chat(vendor, req, res, s) },
        { method: 'GET', pattern: /^\/openai(\/v1)?\/models$/, name: 'models', handle: (req, res) => listModels(vendor, models, req, res) },
      ]
    : [
        { method: 'POST', pattern: /^(?<prefix>(\/[^/]+)*)\/chat\/completions$/, name: 'chat.completions', handle: (req, res, s) => chat(vendor, req, res, s) },
        { method: 'GET', pattern: /^(?<prefix>(\/[^/]+)*)\/models$/, name: 'models', handle: (req, res) => listModels(vendor, models, req, res) },
      ];
  return new WireServer(vendor, routes, (req, res) => sendJson(res, 404, { error: { message: `Unknown request URL: ${req.method} ${req.path}.`, type: 'invalid_request_error', param: null, code: 'unknown_url' } })).start();
}
