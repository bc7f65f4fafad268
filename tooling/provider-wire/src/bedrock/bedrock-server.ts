// A local Amazon Bedrock runtime: Converse (JSON), ConverseStream (AWS event stream) and
// CountTokens, checking every request against BEDROCK_RULES and answering a broken rule the
// way Bedrock does (400, `x-amzn-ErrorType: ValidationException`, `{"message": …}`).
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { wireSignature } from '../core/signatures.js';
import { estimateTokens, replyTokens, type ScriptedReply } from '../core/scripted-reply.js';
import { runRules, isRec, type Json, type WireViolation } from '../core/wire-rule.js';
import { WireServer, type WireRequest, type WireRoute } from '../core/wire-server.js';
import { BEDROCK_RULES } from './bedrock-rules.js';
import { encodeEvent } from './event-stream.js';

/** Every Converse rule `body` breaks (a Converse body, or a CountTokens body with `input.converse`). */
export function checkBedrockConverse(body: Json): WireViolation[] {
  return runRules(BEDROCK_RULES, body, undefined);
}

/** Writes a Bedrock error the way the service does (the SDKs read the type from the header). */
export function sendBedrockError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(JSON.stringify({ message }));
}

const toolUseId = (n: number): string => `tooluse_${n.toString(36).padStart(6, '0')}LocalBedrockUse${n % 10}`;

function outputBlocks(reply: ScriptedReply, server: WireServer): Json[] {
  const blocks: Json[] = [];
  if (reply.reasoning !== undefined) {
    blocks.push({ reasoningContent: { reasoningText: { text: reply.reasoning, ...(reply.signed === false ? {} : { signature: wireSignature('bedrock-reasoning', reply.reasoning) }) } } });
  }
  if (reply.text !== undefined) blocks.push({ text: reply.text });
  for (const c of reply.toolCalls ?? []) blocks.push({ toolUse: { toolUseId: c.id ?? toolUseId(server.nextSeq()), name: c.name, input: c.input } });
  return blocks;
}

function authorized(req: WireRequest, res: ServerResponse): boolean {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && (/^AWS4-HMAC-SHA256 Credential=\S+/.test(auth) || /^Bearer \S+/.test(auth))) return true;
  sendBedrockError(res, 403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  return false;
}

function checked(req: WireRequest, res: ServerResponse): boolean {
  if (!isRec(req.body)) {
    sendBedrockError(res, 400, 'SerializationException', 'Unexpected end of JSON input');
    return false;
  }
  req.violations = checkBedrockConverse(req.body);
  if (req.violations.length === 0) return true;
  sendBedrockError(res, 400, 'ValidationException', req.violations[0].message);
  return false;
}

async function converse(req: WireRequest, res: ServerResponse, server: WireServer, stream: boolean): Promise<void> {
  if (!authorized(req, res)) return;
  const raw = server.takeRawHandler();
  if (raw) {
    if (isRec(req.body)) req.violations = checkBedrockConverse(req.body);
    return raw(req, res);
  }
  if (!checked(req, res)) return;
  const reply = server.takeReply();
  const blocks = outputBlocks(reply, server);
  const stopReason = (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  const usage = { inputTokens: reply.usage?.inputTokens ?? estimateTokens(req.body), outputTokens: replyTokens(reply) };
  const fullUsage = { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify({ output: { message: { role: 'assistant', content: blocks } }, stopReason, usage: fullUsage, metrics: { latencyMs: 1 } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomUUID() });
  const send = async (type: string, payload: unknown): Promise<void> => {
    res.write(encodeEvent(type, payload));
    await new Promise((r) => setImmediate(r));
  };
  await send('messageStart', { role: 'assistant' });
  for (const [index, block] of blocks.entries()) {
    if (isRec(block.toolUse)) {
      const use = block.toolUse;
      await send('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: use.toolUseId, name: use.name } } });
      await send('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: JSON.stringify(use.input) } } });
    } else if (isRec(block.reasoningContent)) {
      const rt = block.reasoningContent.reasoningText as Json;
      await send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: rt.text } } });
      if (typeof rt.signature === 'string') await send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature: rt.signature } } });
    } else {
      const text = String(block.text);
      // Two deltas, so clients assemble text as they must with the real stream.
      const cut = Math.ceil(text.length / 2);
      await send('contentBlockDelta', { contentBlockIndex: index, delta: { text: text.slice(0, cut) } });
      if (text.length > cut) await send('contentBlockDelta', { contentBlockIndex: index, delta: { text: text.slice(cut) } });
    }
    await send('contentBlockStop', { contentBlockIndex: index });
  }
  await send('messageStop', { stopReason });
  await send('metadata', { usage: fullUsage, metrics: { latencyMs: 1 } });
  res.end();
}

const MODEL = '(?<model>[^/]+)';

const ROUTES: readonly WireRoute[] = [
  { method: 'POST', pattern: new RegExp(`^/model/${MODEL}/converse$`), name: 'converse', handle: (req, res, s) => converse(req, res, s, false) },
  { method: 'POST', pattern: new RegExp(`^/model/${MODEL}/converse-stream$`), name: 'converse-stream', handle: (req, res, s) => converse(req, res, s, true) },
  {
    method: 'POST',
    pattern: new RegExp(`^/model/${MODEL}/count-tokens$`),
    name: 'count-tokens',
    handle: (req, res) => {
      if (!authorized(req, res) || !checked(req, res)) return;
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
      res.end(JSON.stringify({ inputTokens: estimateTokens((req.body as Json).input) }));
    },
  },
];

/**
 * Starts a local Bedrock runtime on 127.0.0.1. Point `@aws-sdk/client-bedrock-runtime` at it
 * with `endpoint: server.url` (any region and credentials, or a bearer token), or
 * `@ai-sdk/amazon-bedrock` with `baseURL: server.url`.
 */
export async function startBedrockServer(): Promise<WireServer> {
  return new WireServer('bedrock', ROUTES, (req, res) => sendBedrockError(res, 404, 'UnknownOperationException', `No operation at ${req.method} ${req.path}`)).start();
}
