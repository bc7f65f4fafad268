// fast-check generators of valid native histories in each dialect, with everything the
// governor's model cannot represent: signed thinking and redacted thinking, cache_control,
// images and documents, is_error results, server tool blocks (Anthropic); reasoning items with
// encrypted content, output messages with ids, multi-part inputs, unknown item types
// (Responses). Valid: the API would accept them as they are, so governing them without a
// budget must give back the very same objects.
import fc from 'fast-check';
import type { AnthropicBlockLike, AnthropicMessageLike } from '../dialects/anthropic/anthropic-types.js';
import type { ResponsesItemLike } from '../dialects/responses/responses-types.js';

const WORDS = ['the', 'file', 'result', 'error', 'Ωmega', '日本語', 'x = 1;', '{"k": 2}', 'line\nbreak', 'done.'];
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 10 }).map((w) => w.join(' '));
const TOOLS = ['read_file', 'exec', 'grep', 'web_fetch'];
const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const sig = fc.string({ minLength: 8, maxLength: 40 }).map((s) => Buffer.from(s).toString('base64'));
const cache = fc.option(fc.constant({ type: 'ephemeral' as const }), { nil: undefined });

const withCache = <T extends object>(block: T, cc: { type: 'ephemeral' } | undefined): T => (cc === undefined ? block : { ...block, cache_control: cc });

const textBlock = fc.tuple(words, cache).map(([text, cc]) => withCache({ type: 'text', text }, cc));
const imageBlock = cache.map((cc) => withCache({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } }, cc));
const documentBlock = words.map((text) => ({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, title: 'notes' }));
const userExtra = fc.array(fc.oneof({ weight: 4, arbitrary: textBlock }, { weight: 1, arbitrary: imageBlock }, { weight: 1, arbitrary: documentBlock }), { minLength: 1, maxLength: 3 });

interface AssistantPlan {
  thinking: 'none' | 'thinking' | 'redacted';
  signature: string;
  thought: string;
  text: { type: string; text: string } | null;
  calls: string[];
  server: boolean;
  results: { content: 'string' | 'blocks'; text: string; isError: boolean; cc: { type: 'ephemeral' } | undefined }[];
  after: AnthropicBlockLike[] | string | null;
}

const assistantPlan: fc.Arbitrary<AssistantPlan> = fc.record({
  thinking: fc.constantFrom('none', 'thinking', 'redacted'),
  signature: sig,
  thought: words,
  text: fc.option(textBlock, { nil: null }),
  calls: fc.array(fc.constantFrom(...TOOLS), { minLength: 0, maxLength: 3 }),
  server: fc.boolean(),
  results: fc.array(fc.record({ content: fc.constantFrom('string', 'blocks'), text: words, isError: fc.boolean(), cc: cache }), { minLength: 3, maxLength: 3 }),
  after: fc.option(fc.oneof(words, userExtra), { nil: null }),
});

/** A valid Anthropic history: `{ system, messages }`, user first and last, strict alternation. */
export const arbitraryAnthropicHistory: fc.Arbitrary<{ system: string | AnthropicBlockLike[]; messages: AnthropicMessageLike[] }> = fc
  .record({
    system: fc.oneof(words, fc.array(textBlock, { minLength: 1, maxLength: 2 })),
    first: fc.oneof(words, userExtra),
    turns: fc.array(assistantPlan, { minLength: 0, maxLength: 8 }),
    last: words,
  })
  .map(({ system, first, turns, last }) => {
    const messages: AnthropicMessageLike[] = [{ role: 'user', content: first }];
    let id = 0;
    turns.forEach((t, k) => {
      const blocks: AnthropicBlockLike[] = [];
      if (t.thinking === 'thinking') blocks.push({ type: 'thinking', thinking: t.thought, signature: t.signature } as AnthropicBlockLike);
      if (t.thinking === 'redacted') blocks.push({ type: 'redacted_thinking', data: t.signature } as AnthropicBlockLike);
      if (t.server) {
        const sid = `srvtoolu_${k}`;
        blocks.push({ type: 'server_tool_use', id: sid, name: 'web_search', input: { query: t.thought } } as AnthropicBlockLike);
        blocks.push({ type: 'web_search_tool_result', tool_use_id: sid, content: [{ type: 'web_search_result', url: 'https://example.com', title: 'x', encrypted_content: t.signature }] } as AnthropicBlockLike);
      }
      if (t.text !== null) blocks.push(t.text as AnthropicBlockLike);
      const ids = t.calls.map((name) => ({ id: `toolu_${id++}`, name }));
      for (const c of ids) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: { path: t.thought } } as AnthropicBlockLike);
      if (blocks.length === 0) blocks.push({ type: 'text', text: t.thought } as AnthropicBlockLike);
      messages.push({ role: 'assistant', content: blocks });
      const reply: AnthropicBlockLike[] = ids.map((c, j) => {
        const r = t.results[j];
        const block: Record<string, unknown> = { type: 'tool_result', tool_use_id: c.id, content: r.content === 'string' ? r.text : [{ type: 'text', text: r.text }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } }] };
        if (r.isError) block.is_error = true;
        if (r.cc !== undefined) block.cache_control = r.cc;
        return block as unknown as AnthropicBlockLike;
      });
      const after = k === turns.length - 1 ? last : t.after ?? (ids.length === 0 ? t.thought : null);
      if (after !== null) reply.push(...(typeof after === 'string' ? [{ type: 'text', text: after } as AnthropicBlockLike] : after));
      messages.push({ role: 'user', content: reply.length === 1 && typeof after === 'string' && ids.length === 0 ? after : reply });
    });
    if (turns.length === 0) messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: last });
    return { system, messages };
  });

interface ResponsesPlan {
  reasoning: boolean;
  encrypted: string;
  text: string | null;
  output: boolean;
  calls: string[];
  callReasoning: boolean[];
  results: { list: boolean; text: string }[];
  unknown: boolean;
  user: string | null;
  parts: boolean;
}

const responsesPlan: fc.Arbitrary<ResponsesPlan> = fc.record({
  reasoning: fc.boolean(),
  encrypted: sig,
  text: fc.option(words, { nil: null }),
  output: fc.boolean(),
  calls: fc.array(fc.constantFrom(...TOOLS), { minLength: 0, maxLength: 3 }),
  callReasoning: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  results: fc.array(fc.record({ list: fc.boolean(), text: words }), { minLength: 3, maxLength: 3 }),
  unknown: fc.boolean(),
  user: fc.option(words, { nil: null }),
  parts: fc.boolean(),
});

/** A valid Responses input: instructions, a user message first, every call answered after it. */
export const arbitraryResponsesInput: fc.Arbitrary<ResponsesItemLike[]> = fc
  .record({ developer: fc.option(fc.tuple(fc.constantFrom('developer', 'system'), words), { nil: null }), first: words, turns: fc.array(responsesPlan, { minLength: 0, maxLength: 8 }), last: words })
  .map(({ developer, first, turns, last }) => {
    const items: Record<string, unknown>[] = [];
    if (developer !== null) items.push({ role: developer[0], content: developer[1] });
    items.push({ role: 'user', content: first });
    let id = 0;
    turns.forEach((t, k) => {
      const text = t.text ?? (t.calls.length === 0 ? 'ok' : null);
      if (t.reasoning) items.push({ type: 'reasoning', id: `rs_${k}`, summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: t.encrypted });
      if (text !== null) {
        items.push(t.output
          ? { type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }
          : { role: 'assistant', content: text });
      }
      const ids = t.calls.map((name) => ({ id: `call_${id++}`, name }));
      ids.forEach((c, j) => {
        if (t.callReasoning[j] && (j > 0 || text !== null || !t.reasoning)) items.push({ type: 'reasoning', id: `rs_${k}_${j}`, summary: [], encrypted_content: t.encrypted });
        items.push({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify({ path: t.encrypted }) });
      });
      if (t.unknown) items.push({ type: 'web_search_call', id: `ws_${k}`, status: 'completed', action: { type: 'search', query: 'q' } });
      ids.forEach((c, j) => {
        const r = t.results[j];
        items.push({ type: 'function_call_output', call_id: c.id, output: r.list ? [{ type: 'input_text', text: r.text }, { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${IMAGE}` }] : r.text });
      });
      const user = k === turns.length - 1 ? last : t.user;
      if (user !== null) items.push({ role: 'user', content: t.parts ? [{ type: 'input_text', text: user }] : user });
    });
    if (turns.length === 0 || items[items.length - 1].role !== 'user') items.push({ role: 'user', content: last });
    return items as ResponsesItemLike[];
  });
