// A local OpenAI Responses API: POST /v1/responses (JSON and SSE events) and
// /v1/responses/input_tokens, checking `input` against RESPONSES_RULES.
import type { ServerResponse } from 'node:http';
import { wireSignature } from '../core/signatures.js';
import { estimateTokens, replyTokens, type ScriptedReply } from '../core/scripted-reply.js';
import { isRec, runRules, type Json, type WireViolation } from '../core/wire-rule.js';
import { sendJson, startSse, WireServer, writeSse, type WireRequest, type WireRoute } from '../core/wire-server.js';
import { RESPONSES_RULES } from './responses-rules.js';

/** Every rule a Responses request body breaks. */
export function checkResponses(body: Json): WireViolation[] {
  return runRules(RESPONSES_RULES, body, undefined);
}

/** The encrypted content a local Responses server gives the reasoning item `id`. */
export const responsesEncryptedContent = (id: string): string => wireSignature('responses-reasoning', id);

/** The encrypted content a local Responses server gives the compaction item `id`. */
export const responsesCompactionContent = (id: string): string => wireSignature('responses-compaction', id);

function authorized(req: WireRequest, res: ServerResponse): boolean {
  if (typeof req.headers.authorization === 'string' && /^Bearer \S+/.test(req.headers.authorization)) return true;
  sendJson(res, 401, { error: { message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", type: 'invalid_request_error', param: null, code: null } });
  return false;
}

function outputItems(reply: ScriptedReply, body: Json, server: WireServer): Json[] {
  const items: Json[] = [];
  const includeEncrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
  if (reply.reasoning !== undefined) {
    const id = `rs_local${server.nextSeq()}`;
    items.push({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: reply.reasoning }], ...(includeEncrypted && reply.signed !== false ? { encrypted_content: responsesEncryptedContent(id) } : {}) });
  }
  if (reply.text !== undefined) items.push({ type: 'message', id: `msg_local${server.nextSeq()}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
  for (const c of reply.toolCalls ?? []) {
    const n = server.nextSeq();
    items.push({ type: 'function_call', id: `fc_local${n}`, call_id: c.id ?? `call_local${n}`, name: c.name, arguments: JSON.stringify(c.input), status: 'completed' });
  }
  return items;
}

async function responses(req: WireRequest, res: ServerResponse, server: WireServer): Promise<void> {
  if (!authorized(req, res)) return;
  const body = isRec(req.body) ? req.body : undefined;
  if (body) req.violations = checkResponses(body);
  const raw = server.takeRawHandler();
  if (raw) return raw(req, res);
  if (!body) return sendJson(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
  if (req.violations.length > 0) {
    const v = req.violations[0];
    return sendJson(res, 400, { error: { message: v.message, type: 'invalid_request_error', param: v.path.startsWith('input') ? v.path : null, code: v.code ?? null } });
  }
  const reply = server.takeReply();
  const output = outputItems(reply, body, server);
  const usage = { input_tokens: reply.usage?.inputTokens ?? estimateTokens([body.instructions, body.input]), input_tokens_details: { cached_tokens: 0 }, output_tokens: replyTokens(reply), output_tokens_details: { reasoning_tokens: 0 } };
  const response = { id: `resp_local${server.nextSeq()}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model: String(body.model), output, usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens }, error: null, incomplete_details: null };
  if (body.stream !== true) return sendJson(res, 200, response);
  startSse(res);
  let n = 0;
  const ev = (type: string, data: Json): Promise<void> => writeSse(res, { type, sequence_number: n++, ...data }, type);
  await ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  for (const [index, item] of output.entries()) {
    if (item.type === 'message') {
      const text = ((item.content as Json[])[0] as { text: string }).text;
      await ev('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      await ev('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      const cut = Math.ceil(text.length / 2);
      for (const delta of [text.slice(0, cut), text.slice(cut)]) if (delta) await ev('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] });
      await ev('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] });
      await ev('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: (item.content as Json[])[0] });
    } else if (item.type === 'function_call') {
      await ev('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
      await ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments });
      await ev('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments });
    } else {
      await ev('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
      const text = ((item.summary as Json[])[0] as { text: string }).text;
      await ev('response.reasoning_summary_part.added', { item_id: item.id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      await ev('response.reasoning_summary_text.delta', { item_id: item.id, output_index: index, summary_index: 0, delta: text });
      await ev('response.reasoning_summary_text.done', { item_id: item.id, output_index: index, summary_index: 0, text });
      await ev('response.reasoning_summary_part.done', { item_id: item.id, output_index: index, summary_index: 0, part: { type: 'summary_text', text } });
    }
    await ev('response.output_item.done', { output_index: index, item });
  }
  await ev('response.completed', { response });
  res.end();
}

/** Starts a local Responses API on 127.0.0.1 (`baseURL: ${server.url}/v1`). */
export async function startResponsesServer(): Promise<WireServer> {
  const routes: WireRoute[] = [
    { method: 'POST', pattern: /^(\/v1)?\/responses$/, name: 'responses', handle: responses },
    {
      method: 'POST',
      pattern: /^(\/v1)?\/responses\/input_tokens$/,
      name: 'responses.input_tokens',
      handle: (req, res) => {
        if (!authorized(req, res)) return;
        const body = isRec(req.body) ? req.body : {};
        req.violations = checkResponses(body);
        if (req.violations.length > 0) return sendJson(res, 400, { error: { message: req.violations[0].message, type: 'invalid_request_error', param: null, code: req.violations[0].code ?? null } });
        sendJson(res, 200, { object: 'response.input_tokens', input_tokens: estimateTokens([body.instructions, body.input, body.tools]) });
      },
    },
  ];
  return new WireServer('openai-responses', routes, (req, res) => sendJson(res, 404, { error: { message: `Unknown request URL: ${req.method} ${req.path}.`, type: 'invalid_request_error', param: null, code: 'unknown_url' } })).start();
}
