// A local Gemini API (v1beta): models/{m}:generateContent, :streamGenerateContent (SSE with
// alt=sse), :countTokens and models.get, checking `contents` against GEMINI_RULES and answering a
// broken rule with Google's 400 INVALID_ARGUMENT body.
import type { ServerResponse } from 'node:http';
import { geminiCallSignature, geminiTextSignature } from '../core/gemini-signature.js';
import { estimateTokens, replyTokens, type ScriptedReply } from '../core/scripted-reply.js';
import { isRec, runRules, type Json, type WireViolation } from '../core/wire-rule.js';
import { sendJson, startSse, WireServer, writeSse, type WireRequest, type WireRoute } from '../core/wire-server.js';
import { GEMINI_RULES } from './gemini-rules.js';

/** Every rule a generateContent (or countTokens) body breaks; the model comes from the URL. */
export function checkGemini(body: Json, model = String(body.model ?? '')): WireViolation[] {
  const request = isRec(body.generateContentRequest) ? body.generateContentRequest : body;
  return runRules(GEMINI_RULES, { ...request, model: model.replace(/^models\//, '') }, undefined);
}

/** A model models.get describes. */
export interface GeminiListedModel {
  id: string;
  inputTokenLimit?: number;
  outputTokenLimit?: number;
}

const DEFAULT_MODELS: GeminiListedModel[] = [
  { id: 'gemini-3-pro-preview', inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 },
  { id: 'gemini-2.5-flash', inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 },
];

/** Writes Google's error body. */
export function sendGeminiError(res: ServerResponse, code: number, status: string, message: string): void {
  sendJson(res, code, { error: { code, message, status } });
}

function authorized(req: WireRequest, res: ServerResponse): boolean {
  const key = req.headers['x-goog-api-key'] ?? req.query.get('key');
  if (typeof key === 'string' && key !== '') return true;
  sendGeminiError(res, 403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
  return false;
}

function partsFor(reply: ScriptedReply): Json[] {
  const parts: Json[] = [];
  const signed = reply.signed !== false;
  if (reply.reasoning !== undefined) parts.push({ text: reply.reasoning, thought: true });
  const callsList = reply.toolCalls ?? [];
  if (reply.text !== undefined) parts.push({ text: reply.text, ...(signed && callsList.length === 0 && reply.reasoning !== undefined ? { thoughtSignature: geminiTextSignature(reply.text) } : {}) });
  callsList.forEach((c, i) => parts.push({ functionCall: { name: c.name, args: c.input }, ...(signed && i === 0 ? { thoughtSignature: geminiCallSignature(c.name, c.input) } : {}) }));
  return parts;
}

async function generate(req: WireRequest, res: ServerResponse, server: WireServer, stream: boolean): Promise<void> {
  if (!authorized(req, res)) return;
  const body = isRec(req.body) ? req.body : undefined;
  if (body) req.violations = checkGemini(body, req.params.model);
  const raw = server.takeRawHandler();
  if (raw) return raw(req, res);
  if (!body) return sendGeminiError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  if (req.violations.length > 0) return sendGeminiError(res, 400, 'INVALID_ARGUMENT', req.violations[0].message);
  const reply = server.takeReply();
  const parts = partsFor(reply);
  const usageMetadata = { promptTokenCount: reply.usage?.inputTokens ?? estimateTokens([body.systemInstruction, body.contents]), candidatesTokenCount: replyTokens(reply) };
  const usage = { ...usageMetadata, totalTokenCount: usageMetadata.promptTokenCount + usageMetadata.candidatesTokenCount };
  const chunk = (p: Json[], finish?: string): Json => ({ candidates: [{ content: { role: 'model', parts: p }, ...(finish ? { finishReason: finish } : {}), index: 0 }], ...(finish ? { usageMetadata: usage } : {}), modelVersion: req.params.model, responseId: 'local' });
  if (!stream) return sendJson(res, 200, chunk(parts, 'STOP'));
  if (req.query.get('alt') !== 'sse') {
    // Without alt=sse Google streams one JSON array.
    return sendJson(res, 200, parts.map((p, i) => chunk([p], i === parts.length - 1 ? 'STOP' : undefined)));
  }
  startSse(res);
  for (const [i, p] of parts.entries()) await writeSse(res, chunk([p], i === parts.length - 1 ? 'STOP' : undefined));
  res.end();
}

function modelInfo(m: GeminiListedModel): Json {
  return { name: `models/${m.id}`, version: '001', displayName: m.id, inputTokenLimit: m.inputTokenLimit ?? 1_048_576, outputTokenLimit: m.outputTokenLimit ?? 8_192, supportedGenerationMethods: ['generateContent', 'countTokens'], thinking: true };
}

const MODEL = '(?<model>[^/:]+)';

/**
 * Starts a local Gemini API on 127.0.0.1 (`baseURL: ${server.url}/v1beta` for `@ai-sdk/google`).
 * `models` sets what models.get publishes.
 */
export async function startGeminiServer(options: { models?: GeminiListedModel[] } = {}): Promise<WireServer> {
  const models = options.models ?? DEFAULT_MODELS;
  const routes: WireRoute[] = [
    { method: 'POST', pattern: new RegExp(`^/v1(beta)?/models/${MODEL}:generateContent$`), name: 'generateContent', handle: (req, res, s) => generate(req, res, s, false) },
    { method: 'POST', pattern: new RegExp(`^/v1(beta)?/models/${MODEL}:streamGenerateContent$`), name: 'streamGenerateContent', handle: (req, res, s) => generate(req, res, s, true) },
    {
      method: 'POST',
      pattern: new RegExp(`^/v1(beta)?/models/${MODEL}:countTokens$`),
      name: 'countTokens',
      handle: (req, res) => {
        if (!authorized(req, res)) return;
        const body = isRec(req.body) ? req.body : {};
        req.violations = checkGemini(body, req.params.model);
        if (req.violations.length > 0) return sendGeminiError(res, 400, 'INVALID_ARGUMENT', req.violations[0].message);
        sendJson(res, 200, { totalTokens: estimateTokens(body.contents ?? body.generateContentRequest) });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/v1(beta)?/models/${MODEL}$`),
      name: 'models.get',
      handle: (req, res) => {
        if (!authorized(req, res)) return;
        const m = models.find((x) => x.id === req.params.model);
        if (!m) return sendGeminiError(res, 404, 'NOT_FOUND', `models/${req.params.model} is not found for API version v1beta, or is not supported for generateContent.`);
        sendJson(res, 200, modelInfo(m));
      },
    },
    { method: 'GET', pattern: /^\/v1(beta)?\/models$/, name: 'models.list', handle: (req, res) => (authorized(req, res) ? sendJson(res, 200, { models: models.map(modelInfo) }) : undefined) },
  ];
  return new WireServer('gemini', routes, (req, res) => sendGeminiError(res, 404, 'NOT_FOUND', `Not found: ${req.method} ${req.path}`)).start();
}
