// The OpenAI Responses API's rules for a request's `input` items, with the API's wording: every
// function_call_output has its function_call and every function_call its output; a reasoning
// item is followed by the item it produced; reasoning items carry `summary`; encrypted reasoning
// comes back exactly as it was given, and so does a compaction item; without `store`, items are
// not looked up by id.
import { verifyWireSignature } from '../core/signatures.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { records } from '../core/wire-rule.js';

const REASONING = 'https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context';
const FUNCTION_CALLING = 'https://platform.openai.com/docs/guides/function-calling';
const COMPACTION = 'https://developers.openai.com/api/docs/guides/compaction';

/** The body's `input` as items (a string input is one user message). */
export function responsesItems(body: Json): Json[] {
  return typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : records(body.input);
}

const isMessage = (it: Json): boolean => it.type === 'message' || (it.type === undefined && 'role' in it);

function rule(id: string, wording: string, source: string, check: (items: Json[], body: Json) => RuleFinding[]): WireRule {
  return { id: `responses/${id}`, provider: 'openai-responses', wire: 'openai-responses', wording, source, check: (body) => check(responsesItems(body), body) };
}

/** The Responses rules, in the order the API reports them. */
export const RESPONSES_RULES: readonly WireRule[] = [
  rule('reasoning-summary', 'a reasoning item sent back carries `summary` (an empty list is fine)', 'https://platform.openai.com/docs/api-reference/responses/create', (items) =>
    items.flatMap((it, i) => (it.type === 'reasoning' && !Array.isArray(it.summary) ? [{ path: `input[${i}].summary`, message: `Missing required parameter: 'input[${i}].summary'.`, code: 'missing_required_parameter' }] : []))),
  rule('items-need-store', '"Items are not persisted when `store` is set to false": a reasoning item without its encrypted content cannot be looked up', REASONING, (items, body) =>
    body.store !== false ? [] : items.flatMap((it, i) => (it.type === 'reasoning' && typeof it.encrypted_content !== 'string' && typeof it.id === 'string' ? [{ path: `input[${i}]`, message: `Item with id '${it.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.` }] : []))),
  rule('encrypted-reasoning-byte-exact', 'encrypted reasoning comes back exactly as the API gave it ("The encrypted content ... could not be verified")', 'https://github.com/openai/codex/issues/8119', (items) =>
    items.flatMap((it, i) => (it.type === 'reasoning' && typeof it.encrypted_content === 'string' && !verifyWireSignature('responses-reasoning', String(it.id ?? ''), it.encrypted_content)
      ? [{ path: `input[${i}].encrypted_content`, message: `The encrypted content for item ${String(it.id)} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`, code: 'invalid_encrypted_content' }]
      : []))),
  rule('compaction-byte-exact', 'a compaction item goes back as the API returned it: its `encrypted_content` is opaque ("not intended to be human-interpretable") and is decrypted by the server ("could not be verified" otherwise)', COMPACTION, (items) =>
    items.flatMap((it, i) => (it.type === 'compaction' && !verifyWireSignature('responses-compaction', String(it.id ?? ''), it.encrypted_content)
      ? [{ path: `input[${i}].encrypted_content`, message: `The encrypted content for item ${String(it.id)} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`, code: 'invalid_encrypted_content' }]
      : []))),
  rule('reasoning-followed', 'a reasoning item stays with the item that followed it ("was provided without its required following item")', REASONING, (items) => {
    const out: RuleFinding[] = [];
    items.forEach((it, i) => {
      if (it.type !== 'reasoning') return;
      let j = i + 1;
      while (j < items.length && items[j].type === 'reasoning') j++;
      const next = items[j];
      const ok = next !== undefined && (next.type === 'function_call' || next.type === 'custom_tool_call' || next.type === 'web_search_call' || next.type === 'file_search_call' || next.type === 'computer_call' || (isMessage(next) && next.role === 'assistant'));
      if (!ok) out.push({ path: `input[${i}]`, message: `Item '${String(it.id)}' of type 'reasoning' was provided without its required following item.` });
    });
    return out;
  }),
  rule('output-has-call', 'every function_call_output answers a function_call given before it', FUNCTION_CALLING, (items) => {
    const calls = new Set<string>();
    const out: RuleFinding[] = [];
    items.forEach((it, i) => {
      if (it.type === 'function_call') calls.add(String(it.call_id));
      if (it.type === 'function_call_output' && !calls.has(String(it.call_id))) out.push({ path: `input[${i}]`, message: `No tool call found for function call output with call_id ${String(it.call_id)}.` });
    });
    return out;
  }),
  rule('call-has-output', 'every function_call is answered by a function_call_output', FUNCTION_CALLING, (items) => {
    const answered = new Set(items.filter((it) => it.type === 'function_call_output').map((it) => String(it.call_id)));
    return items.flatMap((it, i) => (it.type === 'function_call' && !answered.has(String(it.call_id)) ? [{ path: `input[${i}]`, message: `No tool output found for function call ${String(it.call_id)}.` }] : []));
  }),
];
