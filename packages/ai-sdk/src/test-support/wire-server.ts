// Local stand-ins for the OpenAI chat-completions and Anthropic messages endpoints, on
// 127.0.0.1: each request body is checked against the rules the APIs state for message lists
// (a breach gets the API's 400 error shape), and a valid reply is returned. Test-only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received request. */
export interface WireRequest {
  path: string;
  body: Record<string, unknown>;
  violations: string[];
}

/** A running wire server. */
export interface WireServer {
  url: string;
  requests: WireRequest[];
  close(): Promise<void>;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const blank = (s: unknown) => typeof s !== 'string' || s.trim() === '';

/** OpenAI chat completions: roles, content, and tool calls answered right after their turn. */
export function openAIViolations(body: Rec): string[] {
  const out: string[] = [];
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return ['messages must be a non-empty array'];
  let open: Set<string> | null = null;
  messages.forEach((m: unknown, i) => {
    if (!isRec(m)) return void out.push(`messages[${i}] must be an object`);
    if (m.role === 'tool') {
      if (open === null || typeof m.tool_call_id !== 'string' || !open.delete(m.tool_call_id)) {
        out.push(`messages[${i}]: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'`);
      }
      if (typeof m.content !== 'string' && !Array.isArray(m.content)) out.push(`messages[${i}].content must be a string or an array`);
      return;
    }
    if (open !== null && open.size > 0) {
      out.push(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`);
    }
    open = null;
    if (!['system', 'developer', 'user', 'assistant'].includes(String(m.role))) out.push(`messages[${i}].role ${JSON.stringify(m.role)} is not supported`);
    const calls = m.tool_calls;
    if (m.role === 'assistant') {
      if (Array.isArray(calls) && calls.length > 0) {
        open = new Set();
        for (const c of calls) {
          if (!isRec(c) || typeof c.id !== 'string' || c.type !== 'function' || !isRec(c.function) || typeof c.function.name !== 'string' || typeof c.function.arguments !== 'string') {
            out.push(`messages[${i}].tool_calls: invalid tool call`);
          } else open.add(c.id);
        }
      } else if (m.content === null || m.content === undefined) {
        out.push(`messages[${i}]: 'content' is required unless 'tool_calls' is specified`);
      }
    } else if (calls !== undefined) out.push(`messages[${i}]: only assistant messages carry tool_calls`);
    if (m.role === 'user' && (m.content === undefined || (Array.isArray(m.content) && m.content.length === 0))) out.push(`messages[${i}].content must not be empty`);
  });
  if (open !== null && (open as Set<string>).size > 0) out.push(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.`);
  return out;
}

/** Anthropic messages: user/assistant only, tool_result right after its tool_use, no blank text. */
export function anthropicViolations(body: Rec): string[] {
  const out: string[] = [];
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return ['messages: at least one message is required'];
  let pendingUse: Set<string> = new Set();
  messages.forEach((m: unknown, i) => {
    if (!isRec(m) || (m.role !== 'user' && m.role !== 'assistant')) return void out.push(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : null;
    if (blocks === null || blocks.length === 0) return void out.push(`messages.${i}: all messages must have non-empty content`);
    const uses = new Set<string>();
    let seenOther = false;
    for (const b of blocks as Rec[]) {
      if (b.type === 'text' && blank(b.text)) out.push(`messages.${i}: text content blocks must contain non-whitespace text`);
      if (b.type === 'tool_use') {
        if (m.role !== 'assistant') out.push(`messages.${i}: tool_use blocks are only allowed in assistant messages`);
        uses.add(String(b.id));
      }
      if (b.type === 'tool_result') {
        if (m.role !== 'user') out.push(`messages.${i}: tool_result blocks are only allowed in user messages`);
        if (!pendingUse.delete(String(b.tool_use_id))) out.push(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        if (seenOther) out.push(`messages.${i}: tool_result blocks must come first in the user message`);
      } else seenOther = true;
    }
    if (pendingUse.size > 0) out.push(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pendingUse].join(', ')}`);
    pendingUse = uses;
    if (i === 0 && m.role !== 'user') out.push('messages.0: the first message must use the user role');
  });
  return out;
}

async function start(handle: (req: WireRequest) => { status: number; json: unknown }): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Rec;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Rec;
      } catch {
        body = {};
      }
      const entry: WireRequest = { path: req.url ?? '', body, violations: [] };
      const { status, json } = handle(entry);
      requests.push(entry);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An OpenAI-compatible `/v1/chat/completions` server replying `reply` (or a tool call). */
export function startOpenAIServer(reply: (req: WireRequest) => Rec = () => ({ role: 'assistant', content: 'ok' })): Promise<WireServer> {
  return start((req) => {
    req.violations = req.path.endsWith('/chat/completions') ? openAIViolations(req.body) : [`unknown path ${req.path}`];
    if (req.violations.length > 0) return { status: 400, json: { error: { message: req.violations[0], type: 'invalid_request_error', param: 'messages', code: null } } };
    const message = reply(req);
    return {
      status: 200,
      json: {
        id: `chatcmpl-${Date.now()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: String(req.body.model),
        choices: [{ index: 0, message, finish_reason: Array.isArray(message.tool_calls) ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      },
    };
  });
}

/** An Anthropic `/v1/messages` server replying `reply` content blocks. */
export function startAnthropicServer(reply: (req: WireRequest) => Rec[] = () => [{ type: 'text', text: 'ok' }]): Promise<WireServer> {
  return start((req) => {
    req.violations = req.path.endsWith('/messages') ? anthropicViolations(req.body) : [`unknown path ${req.path}`];
    if (typeof req.body.max_tokens !== 'number') req.violations.push('max_tokens: Field required');
    if (req.violations.length > 0) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: req.violations[0] } } };
    const content = reply(req);
    return {
      status: 200,
      json: {
        id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model: String(req.body.model), content,
        stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 2 },
      },
    };
  });
}
