// Gemini generateContent: the rules a request's `contents` must keep, with the API's wording
// (400 INVALID_ARGUMENT): roles user/model alternating, a function-call turn right after a user
// or function-response turn, a function-response turn right after its call turn with as many
// responses as calls, no content without parts and no empty text; Gemini 3 thought signatures
// on the current turn's function calls and, wherever sent, on the part they came with.
import { CORRUPTED_SIGNATURE_MESSAGE, geminiTextSignature, missingSignatureMessage, validatesSignatures, validCallSignature } from '../core/gemini-signature.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { isRec, records } from '../core/wire-rule.js';

const FUNCTION_CALLING = 'https://ai.google.dev/gemini-api/docs/function-calling';
const SIGNATURES = 'https://ai.google.dev/gemini-api/docs/thought-signatures';

/** The body's contents (non-objects dropped). */
export const geminiContents = (body: Json): Json[] => records(body.contents);
/** The parts of a content. */
export const partsOf = (c: Json): Json[] => records(c.parts);
const calls = (c: Json): Json[] => partsOf(c).filter((p) => isRec(p.functionCall));
const responses = (c: Json): Json[] => partsOf(c).filter((p) => isRec(p.functionResponse));

/** Index of the last user content that is not only function responses: what follows is the current turn. */
export function currentTurnStart(contents: readonly Json[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c.role === 'user' && partsOf(c).some((p) => !isRec(p.functionResponse))) return i + 1;
  }
  return 0;
}

function rule(id: string, wording: string, source: string, check: (cs: Json[], body: Json) => RuleFinding[]): WireRule {
  return { id: `gemini/${id}`, provider: 'gemini', wire: 'gemini', wording, source, check: (body) => check(geminiContents(body), body) };
}

/** The generateContent rules, in the order the API reports them. */
export const GEMINI_RULES: readonly WireRule[] = [
  rule('roles', 'a content\'s role is `user` or `model`', 'https://ai.google.dev/api/caching#Content', (cs) => cs.flatMap((c, i) => (c.role === 'user' || c.role === 'model' || c.role === undefined ? [] : [{ path: `contents[${i}].role`, message: 'Please use a valid role: user, model.' }]))),
  rule('non-empty-parts', 'every content has at least one part', 'https://ai.google.dev/api/caching#Content', (cs) => cs.flatMap((c, i) => (partsOf(c).length === 0 ? [{ path: `contents[${i}].parts`, message: `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n` }] : []))),
  rule('no-empty-text', 'no part with empty text', 'https://github.com/google-gemini/deprecated-generative-ai-python/issues/697', (cs) => {
    const out: RuleFinding[] = [];
    cs.forEach((c, i) => partsOf(c).forEach((p, j) => {
      if ('text' in p && (typeof p.text !== 'string' || p.text === '') && !isRec(p.functionCall)) out.push({ path: `contents[${i}].parts[${j}].text`, message: 'Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.' });
    }));
    return out;
  }),
  rule('alternate-roles', 'user and model turns alternate ("Please ensure that multiturn requests alternate between user and model.")', 'https://openillumi.com/en/en-langchain-gemini-multiturn-error-fix', (cs) => {
    const at = cs.findIndex((c, i) => i > 0 && (c.role ?? 'user') === (cs[i - 1].role ?? 'user'));
    return at < 0 ? [] : [{ path: `contents[${at}]`, message: 'Please ensure that multiturn requests alternate between user and model.' }];
  }),
  rule('call-turn-position', 'a function-call turn comes right after a user turn or a function-response turn', 'https://github.com/google-gemini/gemini-cli/issues/11814', (cs) => cs.flatMap((c, i) => (c.role === 'model' && calls(c).length > 0 && (i === 0 || (cs[i - 1].role ?? 'user') !== 'user') ? [{ path: `contents[${i}]`, message: 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.' }] : []))),
  rule('response-turn-position', 'a function-response turn comes right after its function-call turn', 'https://github.com/langchain-ai/langchain/issues/27799', (cs) => cs.flatMap((c, i) => (responses(c).length > 0 && (i === 0 || cs[i - 1].role !== 'model' || calls(cs[i - 1]).length === 0) ? [{ path: `contents[${i}]`, message: 'Please ensure that function response turn comes immediately after a function call turn.' }] : []))),
  rule('response-count', 'the function-response turn has exactly as many responses as its call turn has calls', FUNCTION_CALLING, (cs) => cs.flatMap((c, i) => {
    if (c.role !== 'model' || calls(c).length === 0) return [];
    const next = cs[i + 1];
    if (!next) return [];
    const n = responses(next).length;
    return n === calls(c).length ? [] : [{ path: `contents[${i + 1}]`, message: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.' }];
  })),
  rule('current-turn-signature', 'Gemini 3: the first function call of each step in the current turn carries its thoughtSignature (or the documented placeholder)', SIGNATURES, (cs, body) => {
    if (!validatesSignatures(String(body.model ?? ''))) return [];
    const out: RuleFinding[] = [];
    for (let i = currentTurnStart(cs); i < cs.length; i++) {
      const first = calls(cs[i])[0];
      if (cs[i].role === 'model' && first && typeof first.thoughtSignature !== 'string') out.push({ path: `contents[${i}]`, message: missingSignatureMessage(String((first.functionCall as Json).name), i + 1) });
    }
    return out;
  }),
  rule('signature-byte-exact', 'a thought signature comes back on the part it came with, unchanged (never invented, never moved)', SIGNATURES, (cs) => {
    const out: RuleFinding[] = [];
    cs.forEach((c, i) => partsOf(c).forEach((p, j) => {
      if (typeof p.thoughtSignature !== 'string') return;
      const ok = isRec(p.functionCall)
        ? validCallSignature(String(p.functionCall.name), p.functionCall.args, p.thoughtSignature)
        : typeof p.text === 'string' && p.thoughtSignature === geminiTextSignature(p.text);
      if (!ok) out.push({ path: `contents[${i}].parts[${j}].thoughtSignature`, message: CORRUPTED_SIGNATURE_MESSAGE });
    }));
    return out;
  }),
];
