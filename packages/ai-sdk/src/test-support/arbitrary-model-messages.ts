// fast-check generators of AI SDK histories: valid ones (every call answered by the results
// right after it, ids unique, no empty text), and damaged ones (results lost or orphaned).
import fc from 'fast-check';
import type { AssistantModelMessage, ModelMessage, ToolModelMessage, ToolResultPart, UserModelMessage } from 'ai';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'file.txt', 'ls -la', 'ok', 'error: nope', 'ünïcode ✓');
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const providerOptions = fc.option(
  fc.record({ anthropic: fc.record({ cacheControl: fc.constant({ type: 'ephemeral' }) }) }),
  { nil: undefined },
);
const jsonValue = fc.oneof(
  fc.record({ path: word, lines: fc.nat(100) }),
  fc.array(word, { maxLength: 3 }),
  fc.record({ nested: fc.record({ ok: fc.boolean(), value: fc.option(word, { nil: null }) }) }),
);

function withOptions<T extends object>(value: T, options: { cacheControl: { type: string } } | undefined, key = 'anthropic'): T {
  return options === undefined ? value : { ...value, providerOptions: { [key]: options } };
}

const userMessage: fc.Arbitrary<UserModelMessage> = fc.oneof(
  text.map((t): UserModelMessage => ({ role: 'user', content: t })),
  fc.tuple(
    fc.array(
      fc.oneof(
        text.map((t) => ({ type: 'text' as const, text: t })),
        fc.constantFrom(
          { type: 'image' as const, image: 'iVBORw0KGgo=', mediaType: 'image/png' },
          { type: 'image' as const, image: new URL('https://example.com/cat.png') },
          { type: 'file' as const, data: 'JVBERi0xLjQ=', mediaType: 'application/pdf', filename: 'a.pdf' },
        ),
      ),
      { minLength: 1, maxLength: 3 },
    ).filter((parts) => parts.some((p) => p.type === 'text')),
    providerOptions,
  ).map(([content, po]): UserModelMessage => withOptions({ role: 'user', content }, po?.anthropic)),
);

const output: fc.Arbitrary<ToolResultPart['output']> = fc.oneof(
  text.map((value) => ({ type: 'text' as const, value })),
  jsonValue.map((value) => ({ type: 'json' as const, value })),
  text.map((value) => ({ type: 'error-text' as const, value })),
  jsonValue.map((value) => ({ type: 'error-json' as const, value })),
  fc.option(text, { nil: undefined }).map((reason) => (reason === undefined ? { type: 'execution-denied' as const } : { type: 'execution-denied' as const, reason })),
  text.map((t) => ({ type: 'content' as const, value: [{ type: 'text' as const, text: t }, { type: 'image-data' as const, data: 'iVBORw0KGgo=', mediaType: 'image/png' }] })),
);

interface Loop {
  assistant: AssistantModelMessage;
  tools: ToolModelMessage[];
}

/** One assistant turn with `calls` tool calls and the tool messages answering them. */
function loop(idBase: number): fc.Arbitrary<Loop> {
  return fc
    .record({
      calls: fc.array(fc.record({ name: fc.constantFrom('exec', 'read_file', 'grep', 'web_fetch'), input: jsonValue, po: providerOptions }), { minLength: 1, maxLength: 3 }),
      reasoning: fc.option(text, { nil: undefined }),
      lead: fc.option(text, { nil: undefined }),
      outputs: fc.array(output, { minLength: 3, maxLength: 3 }),
      split: fc.boolean(),
      approval: fc.boolean(),
      po: providerOptions,
    })
    .map(({ calls, reasoning, lead, outputs, split, approval, po }) => {
      const ids = calls.map((_, i) => `call_${idBase}_${i}`);
      const content: AssistantModelMessage['content'] = [];
      if (reasoning !== undefined) content.push({ type: 'reasoning', text: reasoning, providerOptions: { anthropic: { signature: `sig-${idBase}` } } });
      if (lead !== undefined) content.push({ type: 'text', text: lead });
      calls.forEach((c, i) => content.push(withOptions({ type: 'tool-call' as const, toolCallId: ids[i], toolName: c.name, input: c.input }, c.po?.anthropic, 'openai')));
      if (approval) content.push({ type: 'tool-approval-request', approvalId: `appr_${idBase}`, toolCallId: ids[0] });
      const results = calls.map((c, i): ToolResultPart => ({ type: 'tool-result', toolCallId: ids[i], toolName: c.name, output: outputs[i] }));
      const approvalPart = { type: 'tool-approval-response' as const, approvalId: `appr_${idBase}`, approved: true };
      let tools: ToolModelMessage[];
      if (split && results.length > 1) {
        tools = [{ role: 'tool', content: results.slice(0, 1) }, withOptions({ role: 'tool' as const, content: results.slice(1) }, po?.anthropic)];
      } else {
        tools = [withOptions({ role: 'tool' as const, content: results }, po?.anthropic)];
      }
      if (approval) {
        if (split) tools.unshift({ role: 'tool', content: [approvalPart] });
        else tools[0] = { ...tools[0], content: [approvalPart, ...tools[0].content] };
      }
      return { assistant: { role: 'assistant', content }, tools };
    });
}

const reply: fc.Arbitrary<AssistantModelMessage> = fc.oneof(
  text.map((t): AssistantModelMessage => ({ role: 'assistant', content: t })),
  fc.tuple(text, text).map(([r, t]): AssistantModelMessage => ({
    role: 'assistant',
    content: [{ type: 'reasoning', text: r, providerOptions: { anthropic: { signature: 'sig' } } }, { type: 'text', text: t }],
  })),
);

/**
 * A valid AI SDK history, legal for both OpenAI and Anthropic: optional system, then user
 * turns, each with tool loops and a reply (always a reply when there is no loop, so turns
 * alternate), ending with a user turn (the request being answered).
 */
export const validHistory: fc.Arbitrary<ModelMessage[]> = fc
  .record({
    system: fc.option(text, { nil: undefined }),
    turns: fc.array(
      fc.record({ user: userMessage, loops: fc.array(fc.nat(), { maxLength: 3 }), reply: fc.option(reply, { nil: undefined }) }),
      { minLength: 1, maxLength: 6 },
    ),
  })
  .chain(({ system, turns }) => {
    let id = 0;
    const loopArbs = turns.map((t) => fc.tuple(...t.loops.map(() => loop(id++))));
    return fc.tuple(...loopArbs).map((loops) => {
      const out: ModelMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
      turns.forEach((t, i) => {
        out.push(t.user);
        for (const l of loops[i]) out.push(l.assistant, ...l.tools);
        if (t.reply !== undefined) out.push(t.reply);
        else if (loops[i].length === 0) out.push({ role: 'assistant', content: 'ok' });
      });
      out.push({ role: 'user', content: 'and now?' });
      return out;
    });
  });

/** A history with damage the governor repairs: some results dropped, some moved to the front. */
export const damagedHistory: fc.Arbitrary<ModelMessage[]> = fc
  .tuple(validHistory, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([history, picks, orphanFirst]) => {
    const out = [...history];
    const toolAt = out.map((m, i) => (m.role === 'tool' ? i : -1)).filter((i) => i >= 0);
    const drop = new Set(picks.map((p) => toolAt[p % Math.max(1, toolAt.length)]).filter((i) => i !== undefined));
    const dropped = out.filter((_, i) => drop.has(i));
    const kept = out.filter((_, i) => !drop.has(i));
    if (orphanFirst && dropped.length > 0) {
      const at = kept.findIndex((m) => m.role === 'user');
      kept.splice(at + 1, 0, dropped[0]);
    }
    return kept;
  });
