// The OpenAI Responses API's rules for an `input` list, as its documentation and error
// messages state them: every `function_call` answered by exactly one `function_call_output`
// with the same `call_id` after it (`No tool output found for function call …`), no output
// without its call before it, unique call ids, calls with a name, no empty message (an
// assistant message needs content), a `reasoning` item followed by the item it belongs to
// (`Item 'rs_…' of type 'reasoning' was provided without its required following item`), and a
// user message first after the instructions.
import type { ResponsesItemLike } from '../dialects/responses/responses-types.js';

type Item = Record<string, unknown>;

const isMessage = (it: Item): boolean => it.type === 'message' || ((it.type === undefined || it.type === null) && 'role' in it);

function empty(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length === 0;
  if (!Array.isArray(content) || content.length === 0) return true;
  // A message whose parts are all blank text says nothing (whitespace beside words is fine).
  return content.every((p: Item) => (p.type === 'input_text' || p.type === 'output_text') && (typeof p.text !== 'string' || p.text.trim().length === 0));
}

/** Every rule `input` breaks (empty list: the API accepts it). */
export function responsesRequestViolations(input: readonly ResponsesItemLike[]): string[] {
  const out: string[] = [];
  const items = input as readonly Item[];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  const first = items.findIndex((it) => !(isMessage(it) && (it.role === 'system' || it.role === 'developer')) && (isMessage(it) || it.type === 'function_call' || it.type === 'function_call_output'));
  if (first >= 0 && !(isMessage(items[first]) && items[first].role === 'user')) out.push(`input[${first}]: the first item after the instructions is not a user message`);
  items.forEach((it, i) => {
    const where = `input[${i}]`;
    if (isMessage(it) && empty(it.content)) out.push(`${where}: ${String(it.role)} message without content (or with empty text)`);
    if (it.type === 'function_call') {
      const id = it.call_id;
      if (typeof id !== 'string' || id.length === 0) out.push(`${where}: function_call without a call_id`);
      else if (calls.has(id)) out.push(`${where}: duplicate function_call call_id ${id}`);
      else calls.set(id, i);
      if (typeof it.name !== 'string' || it.name.length === 0) out.push(`${where}: function_call without a name`);
    }
    if (it.type === 'function_call_output') {
      const id = String(it.call_id);
      if (!calls.has(id)) out.push(`${where}: No tool call found for function call output with call_id ${id}`);
      else if (answered.has(id)) out.push(`${where}: second function_call_output for ${id}`);
      answered.add(id);
      if (empty(it.output)) out.push(`${where}: empty function_call_output`);
    }
    if (it.type === 'reasoning') {
      let j = i + 1;
      while (j < items.length && items[j].type === 'reasoning') j++;
      const next = items[j];
      const ok = next !== undefined && (next.type === 'function_call' || (isMessage(next) && next.role === 'assistant'));
      if (!ok) out.push(`${where}: Item '${String(it.id)}' of type 'reasoning' was provided without its required following item`);
    }
  });
  for (const [id, at] of calls) if (!answered.has(id)) out.push(`input[${at}]: No tool output found for function call ${id}`);
  return out;
}
