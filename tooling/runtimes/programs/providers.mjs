// The fetch-based providers of `@nanobot/providers` as they run inside each runtime: the
// OpenAI-compatible, Responses and Anthropic providers, each on the official SDK a user installs,
// asked for a plain and a streamed answer about a recorded session. The providers get a fetch of
// this program's own (their `fetch` option, as a Worker or a test passes one): it records each
// request's method, path and JSON body, and answers with a canned reply whose bytes
// arrive in 7-byte pieces, so every runtime's Request, Response, ReadableStream and TextDecoder
// carry multi-byte characters split across chunks. Also `createProvider` from the registry (its
// SDK modules load on first use; `fetch` and the browser opt-in passed as a Worker or a page
// passes them) and the pure id rule. No network, no runtime API.
// Input: `{ sessions }` as JSON text. Output: one line per case (programs/encode.mjs).
import { collectStream, createProvider, resolveProviderConfig } from '@nanobot/providers';
import { AnthropicProvider, sanitizeAnthropicToolId } from '@nanobot/providers/anthropic';
import { OpenAICompatProvider } from '@nanobot/providers/openai';
import { OpenAIResponsesProvider } from '@nanobot/providers/openai-responses';
import { captureAsync, capture, resultsText, revive } from './encode.mjs';

const TEXT = 'Ünïcödé — ✓ 日本語 🙂 done';
const ARGS = '{"path":"notes/日本.md","mode":"read"}';
/** @type {import('@nanobot/schema').ToolDefinition[]} */
const TOOLS = [{ type: 'function', function: { name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' }, mode: { type: 'string' } }, required: ['path'] } } }];

/** `text` as a stream of 7-byte pieces (multi-byte characters split across pieces). */
function pieces(text) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 7));
      at += 7;
    },
  });
}

const sse = (frames) => `${frames.map((f) => `${f.event ? `event: ${f.event}\n` : ''}data: ${typeof f.data === 'string' ? f.data : JSON.stringify(f.data)}\n\n`).join('')}`;

/** The canned replies by the end of the API path (bases differ: `/v1` or not): `(body) → { type, text }`. */
const REPLIES = {
  '/chat/completions': (body) => {
    const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
    if (!body.stream) {
      return { type: 'application/json', text: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: TEXT, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: ARGS } }] } }], usage }) };
    }
    /** @param {object} delta @param {string | null} [finish] @param {object} [extra] */
    const chunk = (delta, finish = null, extra = {}) => ({ data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra } });
    const half = Math.floor(ARGS.length / 2);
    return {
      type: 'text/event-stream',
      text: sse([
        chunk({ role: 'assistant', content: TEXT.slice(0, 9) }),
        chunk({ content: TEXT.slice(9) }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: ARGS.slice(0, half) } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS.slice(half) } }] }),
        chunk({}, 'tool_calls'),
        { data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage } },
        { data: '[DONE]' },
      ]),
    };
  },
  '/messages': (body) => {
    const usage = { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 };
    const content = [
      { type: 'thinking', thinking: 'Read the notes first.', signature: 'c2lnbmVkLXRoaW5raW5n' },
      { type: 'text', text: TEXT },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: JSON.parse(ARGS) },
    ];
    if (!body.stream) {
      return { type: 'application/json', text: JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content, stop_reason: 'tool_use', stop_sequence: null, usage }) };
    }
    const ev = (type, data) => ({ event: type, data: { type, ...data } });
    return {
      type: 'text/event-stream',
      text: sse([
        ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
        ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Read the notes first.' } }),
        ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmVkLXRoaW5raW5n' } }),
        ev('content_block_stop', { index: 0 }),
        ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: TEXT.slice(0, 9) } }),
        ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: TEXT.slice(9) } }),
        ev('content_block_stop', { index: 1 }),
        ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: {} } }),
        ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: ARGS.slice(0, 11) } }),
        ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: ARGS.slice(11) } }),
        ev('content_block_stop', { index: 2 }),
        ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }),
        ev('message_stop', {}),
      ]),
    };
  },
  '/responses': (body) => {
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Read the notes first.' }], encrypted_content: 'ZW5jcnlwdGVk' },
      { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: TEXT, annotations: [] }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', arguments: ARGS, status: 'completed' },
    ];
    const response = (items, status = 'completed') => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: body.model, output: items, usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 150 } });
    if (!body.stream) return { type: 'application/json', text: JSON.stringify(response(output)) };
    let seq = 0;
    const ev = (type, data) => ({ event: type, data: { type, sequence_number: seq++, ...data } });
    return {
      type: 'text/event-stream',
      text: sse([
        ev('response.created', { response: response([], 'in_progress') }),
        ev('response.output_item.added', { output_index: 0, item: { ...output[0], summary: [] } }),
        ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Read the notes first.' }),
        ev('response.output_item.done', { output_index: 0, item: output[0] }),
        ev('response.output_item.added', { output_index: 1, item: { ...output[1], content: [], status: 'in_progress' } }),
        ev('response.content_part.added', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
        ev('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: TEXT.slice(0, 9), logprobs: [] }),
        ev('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: TEXT.slice(9), logprobs: [] }),
        ev('response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: TEXT, logprobs: [] }),
        ev('response.output_item.done', { output_index: 1, item: output[1] }),
        ev('response.output_item.added', { output_index: 2, item: { ...output[2], arguments: '', status: 'in_progress' } }),
        ev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: ARGS.slice(0, 11) }),
        ev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: ARGS.slice(11) }),
        ev('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 2, arguments: ARGS }),
        ev('response.output_item.done', { output_index: 2, item: output[2] }),
        ev('response.completed', { response: response(output) }),
      ]),
    };
  },
};

/**
 * A fetch that records what the SDK sends (`sent`) and answers from REPLIES, as a server on the
 * other end of the network would. Contract: awaited by the SDK; never throws for a known path.
 */
function recordingFetch(sent) {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const body = text ? JSON.parse(text) : null;
    sent.push({ method: request.method, path: url.pathname, body });
    const reply = Object.entries(REPLIES).find(([suffix]) => url.pathname.endsWith(suffix))?.[1];
    if (!reply) return new Response(JSON.stringify({ error: { message: `no route ${url.pathname}` } }), { status: 404, headers: { 'content-type': 'application/json' } });
    const { type, text: answer } = reply(body ?? {});
    return new Response(pieces(answer), { status: 200, headers: { 'content-type': type } });
  };
}

/** The three providers with the recording fetch (a page needs the SDKs' opt-in, as a user's page does). */
function providers(sent) {
  const common = { apiKey: 'test-key', fetch: recordingFetch(sent), dangerouslyAllowBrowser: true };
  return {
    'openai-compat': new OpenAICompatProvider({ ...common, model: 'gpt-4o-mini', baseUrl: 'http://api.test/v1' }),
    responses: new OpenAIResponsesProvider({ ...common, model: 'gpt-5-mini', baseUrl: 'http://api.test/v1' }),
    anthropic: new AnthropicProvider({ ...common, model: 'claude-sonnet-4-6', baseUrl: 'http://api.test', publishesModelLimits: false }),
  };
}

/** The opening of a session up to (not including) its second user turn, with its last turn a user's. */
function opening(messages) {
  const users = messages.map((m, i) => (m.role === 'user' ? i : -1)).filter((i) => i >= 0);
  const end = users.length > 1 ? users[1] : messages.length;
  const head = messages.slice(0, end);
  return head.at(-1)?.role === 'user' ? head : [...head, { role: 'user', content: 'go on' }];
}

/** What a provider answer says, without the provider's own object shapes. */
const answerOf = (r) => ({ content: r.content, finishReason: r.finishReason, toolCalls: r.toolCalls, usage: r.usage, reasoning: r.reasoningContent ?? null, thinking: r.thinkingBlocks ?? null, state: r.providerState ?? null, fields: r.messageFields ?? null, by: [r.provider ?? null, r.model ?? null] });

/** Runs the cases of `inputText` (`{ sessions }` from src/subset.mjs). */
export async function run(inputText) {
  const input = JSON.parse(inputText, revive);
  const results = [];
  for (const s of input.sessions) {
    const messages = opening(s.messages);
    for (const mode of ['chat', 'stream']) {
      const sent = [];
      for (const [name, provider] of Object.entries(providers(sent))) {
        const request = { messages, tools: TOOLS, maxTokens: 512 };
        const deltas = [];
        const out = await captureAsync(async () =>
          answerOf(mode === 'chat' ? await provider.chat(request) : await collectStream(provider.stream(request), (e) => {
            deltas.push(e.type);
          })),
        );
        results.push({ id: `providers ${name} ${mode} ${s.name}`, out: { answer: out, events: deltas.length, sent: sent.splice(0) } });
      }
    }
  }
  // The registry: which backend and target a model resolves to, and the provider it builds (its
  // SDK module loaded on first use), with the same fetch, asked once.
  for (const config of [{ model: 'deepseek-chat', apiKey: 'k' }, { model: 'mistral/mistral-large-latest', apiKey: 'k' }, { model: 'claude-sonnet-4-6', provider: 'anthropic', apiKey: 'k' }, { model: 'llama3.2', baseUrl: 'http://127.0.0.1:11434/v1' }]) {
    const resolved = capture(() => {
      const r = resolveProviderConfig({ ...config, env: {} });
      return { provider: r.provider, backend: r.backend, model: r.model, baseUrl: r.baseUrl ?? null, target: r.spec.governorTarget ?? null };
    });
    const sent = [];
    const built = await captureAsync(async () => {
      const p = await createProvider({ ...config, env: {}, fetch: recordingFetch(sent), dangerouslyAllowBrowser: true });
      return { name: p.name, model: p.defaultModel, target: p.governorTarget ?? null, answer: answerOf(await p.chat({ messages: [{ role: 'user', content: 'hi' }] })) };
    });
    results.push({ id: `providers createProvider ${JSON.stringify(config)}`, out: { resolved, built, sent: sent.map((r) => ({ method: r.method, path: r.path })) } });
  }
  for (const id of ['toolu_01A', 'call_abc.def', 'x'.repeat(80), 'ü-🙂']) results.push({ id: `providers sanitizeAnthropicToolId ${id}`, out: capture(() => sanitizeAnthropicToolId(id)) });
  return { text: resultsText(results), probe: {} };
}
