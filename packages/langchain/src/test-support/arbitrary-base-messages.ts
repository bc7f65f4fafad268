// fast-check generators of LangChain histories: valid ones (every call answered by the
// ToolMessages right after it, ids unique, no blank text, alternating turns, a user turn
// last), and damaged ones (results lost or moved away from their call).
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import fc from 'fast-check';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'file.txt', 'ls -la', 'ok', 'error: nope', 'ünïcode ✓');
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const args = fc.oneof(fc.record({ path: word, n: fc.nat(50) }), fc.record({ nested: fc.record({ ok: fc.boolean() }) }));
const kwargs = fc.option(fc.record({ cache: fc.boolean() }), { nil: undefined });
const meta = fc.option(fc.record({ model_name: fc.constantFrom('gpt-4o', 'claude') }), { nil: undefined });

const human: fc.Arbitrary<HumanMessage> = fc.oneof(
  text.map((t) => new HumanMessage(t)),
  fc.tuple(text, fc.option(fc.constantFrom('h-1', 'h-2'), { nil: undefined })).map(([t, id]) => new HumanMessage({
    content: [{ type: 'text', text: t }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
    ...(id === undefined ? {} : { id }),
  })),
);

function loop(base: number): fc.Arbitrary<BaseMessage[]> {
  return fc
    .record({
      calls: fc.array(fc.record({ name: fc.constantFrom('exec', 'grep', 'read_file'), args }), { minLength: 1, maxLength: 3 }),
      lead: fc.option(text, { nil: undefined }),
      thinking: fc.boolean(),
      outputs: fc.array(text, { minLength: 3, maxLength: 3 }),
      status: fc.constantFrom('success' as const, 'error' as const, undefined),
      kw: kwargs,
      md: meta,
    })
    .map(({ calls, lead, thinking, outputs, status, kw, md }) => {
      const ids = calls.map((_, i) => `call_${base}_${i}`);
      const blocks: Record<string, unknown>[] = [];
      if (thinking) blocks.push({ type: 'thinking', thinking: 'let me see', signature: `sig${base}` });
      if (lead !== undefined) blocks.push({ type: 'text', text: lead });
      const ai = new AIMessage({
        content: blocks.length > 0 ? (blocks as AIMessage['content']) : '',
        tool_calls: calls.map((c, i) => ({ id: ids[i], name: c.name, args: c.args, type: 'tool_call' as const })),
        id: `run-${base}`,
        ...(kw === undefined ? {} : { additional_kwargs: kw }),
        ...(md === undefined ? {} : { response_metadata: md }),
      });
      const results = calls.map((c, i) => new ToolMessage({ content: outputs[i], tool_call_id: ids[i], name: c.name, ...(status === undefined ? {} : { status }) }));
      return [ai, ...results];
    });
}

/** A valid LangChain history: optional system, user turns with tool loops and replies, a user turn last. */
export const validHistory: fc.Arbitrary<BaseMessage[]> = fc
  .record({
    system: fc.option(text, { nil: undefined }),
    turns: fc.array(fc.record({ user: human, loops: fc.array(fc.nat(), { maxLength: 3 }), reply: fc.option(text, { nil: undefined }) }), { minLength: 1, maxLength: 6 }),
  })
  .chain(({ system, turns }) => {
    let id = 0;
    return fc.tuple(...turns.map((t) => fc.tuple(...t.loops.map(() => loop(id++))))).map((loops) => {
      const out: BaseMessage[] = system === undefined ? [] : [new SystemMessage(system)];
      turns.forEach((t, i) => {
        out.push(t.user);
        for (const l of loops[i]) out.push(...l);
        if (t.reply !== undefined || loops[i].length === 0) out.push(new AIMessage(t.reply ?? 'ok'));
      });
      out.push(new HumanMessage('and now?'));
      return out;
    });
  });

/** A valid history with some ToolMessages dropped and one moved after the first user turn. */
export const damagedHistory: fc.Arbitrary<BaseMessage[]> = fc
  .tuple(validHistory, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([history, picks, orphanFirst]) => {
    const toolAt = history.map((m, i) => (m.type === 'tool' ? i : -1)).filter((i) => i >= 0);
    const drop = new Set(picks.map((p) => toolAt[p % Math.max(1, toolAt.length)]).filter((i) => i !== undefined));
    const dropped = history.filter((_, i) => drop.has(i));
    const kept = history.filter((_, i) => !drop.has(i));
    if (orphanFirst && dropped.length > 0) kept.splice(kept.findIndex((m) => m.type === 'human') + 1, 0, dropped[0]);
    return kept;
  });
