// Planned prompt-cache breakpoints on the OpenAI-compatible path (Claude behind a gateway such as
// OpenRouter, which takes Anthropic's `cache_control` on content parts and tools), through the
// real `openai` SDK against a local server: the markers sit exactly at the governor's boundaries
// mapped through the conversion (merged turns, inserted messages), at most four, never on an
// empty text part; without planned boundaries the fixed rule's body is unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { govern } from '@nanobot/governor';
import type { CacheBreakpoints, Message, ToolDefinition } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { buildOpenAIParams, toOpenAIMessages } from './openai-request.js';
import { MAX_CACHE_BREAKPOINTS } from './select-cache-breakpoints.js';
import { completion, textStream } from './test-support/openai-wire.js';
import { cacheControlPaths } from './test-support/anthropic-rules.js';
import { arbitraryPlannedRequest, recordedSessions } from './test-support/planned-requests.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';

type Rec = Record<string, unknown>;
let server: WireServer;

beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const provider = (extra: Partial<ConstructorParameters<typeof OpenAICompatProvider>[0]> = {}) =>
  new OpenAICompatProvider({ model: 'anthropic/claude-test', apiKey: 'sk-test', baseUrl: `${server.url}/v1`, retry: { maxAttempts: 1 }, ...extra });

const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  { type: 'function', function: { name: 'mcp_docs_search', description: 'Search docs', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
];
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.md"}' } });
const sys = (content: string): Message => ({ role: 'system', content });
const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const result = (id: string, content: Message['content']): Message => ({ role: 'tool', tool_call_id: id, name: 'read_file', content });
const MARK = { type: 'ephemeral' };

/**
 * What a gateway passing `cache_control` on to the Messages API would reject: more than four
 * markers, one that is not `{type: 'ephemeral'}`, one anywhere but on a tool or a content part,
 * one on a part that may not carry it (empty text, audio).
 */
function cacheViolations(body: Rec): string[] {
  const out: string[] = [];
  const paths = cacheControlPaths(body);
  const total = JSON.stringify(body).split('"cache_control"').length - 1;
  if (total !== paths.length) out.push(`${total - paths.length} cache_control outside tools and content parts`);
  if (paths.length > MAX_CACHE_BREAKPOINTS) out.push(`${paths.length} cache_control blocks (at most ${MAX_CACHE_BREAKPOINTS})`);
  for (const p of paths) {
    const [where, a, , b] = p.split('.');
    const block = (where === 'tools' ? (body.tools as Rec[])[Number(a)] : ((body.messages as Rec[])[Number(a)].content as Rec[])[Number(b)]) as Rec;
    if (JSON.stringify(block.cache_control) !== JSON.stringify(MARK)) out.push(`${p}: not ephemeral`);
    if (where === 'tools') continue;
    if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '')) out.push(`${p}: cache_control cannot be set for empty text blocks`);
    else if (block.type !== 'text' && block.type !== 'image_url' && block.type !== 'file') out.push(`${p}: ${String(block.type)} may not carry cache_control`);
  }
  return out;
}

/** Sends `messages` through the provider to the local server and returns the body it got. */
async function send(messages: readonly Message[], cacheBreakpoints?: CacheBreakpoints, withTools = true): Promise<Rec> {
  server.enqueue(replyJson(200, completion({ content: 'ok' })));
  const res = await provider().chat({ messages, ...(withTools ? { tools } : {}), ...(cacheBreakpoints ? { cacheBreakpoints } : {}), maxTokens: 256 });
  expect(res.content).toBe('ok');
  const body = server.requests.at(-1)!.body as Rec;
  expect(cacheViolations(body)).toEqual([]);
  return body;
}

/** A long session whose early turns do not fit a small window. */
function longSession(turns: number): Message[] {
  const out: Message[] = [sys('You are a test agent.')];
  for (let t = 0; t < turns; t++) {
    out.push(user(`question ${t}: ${'lorem ipsum dolor sit amet '.repeat(20)}`));
    if (t % 3 === 0) out.push({ role: 'assistant', content: `looking ${t}`, tool_calls: [call(`c${t}`)] }, result(`c${t}`, `file ${t} `.repeat(100)));
    out.push(answer(`answer ${t}: ${'consectetur adipiscing elit '.repeat(20)}`));
  }
  out.push(user('and now?'));
  return out;
}

/**
 * The body without any `cache_control` and with string contents as one text part (a marker needs
 * a part), to compare with the unmarked conversion.
 */
function unmarked(value: unknown, key = ''): unknown {
  if (key === 'content' && typeof value === 'string') return [{ type: 'text', text: value }];
  if (Array.isArray(value)) return value.map((v) => unmarked(v));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cache_control').map(([k, v]) => [k, unmarked(v, k)]));
}

describe('planned breakpoints on the OpenAI-compatible wire', () => {
  it('a tool loop: the last tool, the system prompt, the previous request\'s end and the last message', async () => {
    const history = deepFreeze<Message[]>([
      sys('You are nanobot.'),
      user('read a.md then b.md'),
      { role: 'assistant', content: 'on it', tool_calls: [call('c1')] },
      result('c1', 'A'),
      { role: 'assistant', content: '', tool_calls: [call('c2')] },
      result('c2', 'B'),
    ]);
    const { messages, report } = govern(history, { tools });
    expect(report.cacheBoundaries).toEqual({ tools: true, instructions: 0, previous: 3, last: 5 });
    const body = await send(messages, report.cacheBoundaries);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.3.content.0', 'messages.5.content.0', 'tools.1']);
    expect((body.messages as Rec[])[3]).toEqual({ role: 'tool', content: [{ type: 'text', text: 'A', cache_control: MARK }], tool_call_id: 'c1', name: 'read_file' });
    // Only the markers differ from the unmarked conversion.
    expect(unmarked(body.messages)).toEqual(unmarked(toOpenAIMessages(messages, { cacheControl: false })));
  });

  it('a snipped history with tools: five candidates, the cut gives way (at most four)', async () => {
    const { messages, report } = govern(deepFreeze(longSession(40)), { tools, contextWindowTokens: 8_000, maxOutputTokens: 1_000 });
    const b = report.cacheBoundaries;
    expect(b.cut).toBeDefined();
    expect(new Set([b.cut, b.previous, b.last, b.instructions]).size).toBe(4);
    const body = await send(messages, b);
    // Governed messages already alternate, so converted message i is governed message i.
    expect((body.messages as unknown[]).length).toBe(messages.length);
    expect(cacheControlPaths(body).sort()).toEqual([...[b.last!, b.previous!, b.instructions!].map((i) => `messages.${i}.content.0`), 'tools.1'].sort());
  });

  it('a snipped history without tools: the cut takes the free slot', async () => {
    const { messages, report } = govern(deepFreeze(longSession(40)), { contextWindowTokens: 8_000, maxOutputTokens: 1_000 });
    const b = report.cacheBoundaries;
    expect(b.tools).toBeUndefined();
    expect(b.cut).toBeGreaterThan(b.instructions!);
    const body = await send(messages, b, false);
    expect(cacheControlPaths(body).sort()).toEqual([b.last!, b.previous!, b.instructions!, b.cut!].map((i) => `messages.${i}.content.0`).sort());
  });

  it('merged same-role messages: boundaries follow the shifted indices; one merged into its successor falls before the merged turn', async () => {
    const messages = deepFreeze<Message[]>([
      sys('s'),
      user('u1'),
      user('u2'),
      { role: 'assistant', content: 'calling', tool_calls: [call('c1')] },
      result('c1', 'R'),
      user('u3'),
      user('u4'),
    ]);
    const converted = (body: Rec) => body.messages as Rec[];
    const body = await send(messages, { instructions: 0, cut: 2, previous: 4, last: 6 }, false);
    expect(converted(body).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.1.content.0', 'messages.3.content.0', 'messages.4.content.0']);
    expect(converted(body)[1].content).toEqual([{ type: 'text', text: 'u1\n\nu2', cache_control: MARK }]);
    expect(converted(body)[4].content).toEqual([{ type: 'text', text: 'u3\n\nu4', cache_control: MARK }]);
    // cut 1 (u1, merged with u2): a marker after u2 would cache content past the boundary.
    const before = await send(messages, { instructions: 0, cut: 1, previous: 5, last: 6 }, false);
    expect(cacheControlPaths(before).sort()).toEqual(['messages.0.content.0', 'messages.3.content.0', 'messages.4.content.0']);
  });

  it('inserted messages: an opener stays out of the instructions, tool images moved to a user turn belong to their result', async () => {
    const messages = deepFreeze<Message[]>([
      sys('s'),
      { role: 'assistant', content: 'resuming', tool_calls: [call('c1')] },
      result('c1', [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]),
    ]);
    const body = await send(messages, { tools: true, instructions: 0, previous: 1, last: 2 });
    const out = body.messages as Rec[];
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    // instructions → the system prompt, not the "(conversation continued)" opener after it;
    // previous → the assistant's text; last → the moved image, the end of the tool result's content.
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.2.content.0', 'messages.4.content.1', 'tools.1']);
    expect((out[4].content as Rec[])[1]).toMatchObject({ type: 'image_url', cache_control: MARK });
  });

  it('never on empty text or a message without parts: the nearest part before it', async () => {
    const messages = deepFreeze<Message[]>([
      sys('s'),
      user('u1'),
      { role: 'assistant', content: null, tool_calls: [call('c1')] },
      result('c1', 'R'),
      user('   '),
    ]);
    // previous (2): the assistant has only tool calls → u1; last (4): blank text → the result.
    const body = await send(messages, { instructions: 0, previous: 2, last: 4 }, false);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.1.content.0', 'messages.3.content.0']);
    expect((body.messages as Rec[])[4]).toEqual({ role: 'user', content: '   ' });
  });

  it('ignores indices out of range and places coinciding boundaries once', async () => {
    const body = await send(deepFreeze([sys('s'), user('hi')]), { tools: true, instructions: 0, previous: 1, cut: 7, last: 1 });
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.1.content.0', 'tools.1']);
  });

  it('without planned boundaries: the fixed rule, byte for byte (system, second-to-last message, built-in and last tool)', async () => {
    const messages = deepFreeze<Message[]>([sys('s'), user('q1'), answer('a1'), user('q2')]);
    await send(messages);
    expect(JSON.stringify(server.requests[0].body)).toBe(JSON.stringify({
      model: 'anthropic/claude-test',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 's', cache_control: MARK }] },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: [{ type: 'text', text: 'a1', cache_control: MARK }] },
        { role: 'user', content: 'q2' },
      ],
      tools: [{ ...tools[0], cache_control: MARK }, { ...tools[1], cache_control: MARK }],
      tool_choice: 'auto',
      max_tokens: 256,
    }));
  });

  it('markers off (cacheControl: false, or a model that is not Claude): none, even with planned boundaries', async () => {
    const plan = { tools: true, instructions: 0, last: 1 };
    server.enqueue(replyJson(200, completion({ content: 'ok' })), replyJson(200, completion({ content: 'ok' })));
    await provider({ cacheControl: false }).chat({ messages: [sys('s'), user('hi')], tools, cacheBreakpoints: plan });
    await provider({ model: 'gpt-4o' }).chat({ messages: [sys('s'), user('hi')], tools, cacheBreakpoints: plan });
    for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain('cache_control');
  });

  it('the streaming call places the same breakpoints', async () => {
    const { messages, report } = govern(deepFreeze<Message[]>([sys('s'), user('go'), { role: 'assistant', content: 'reading', tool_calls: [call('c1')] }, result('c1', 'A')]), { tools });
    server.enqueue(replySse(textStream(['o', 'k'])));
    for await (const event of provider().stream({ messages, tools, cacheBreakpoints: report.cacheBoundaries })) void event;
    const body = server.requests[0].body as Rec;
    expect(cacheViolations(body)).toEqual([]);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.1.content.0', 'messages.3.content.0', 'tools.1']);
  });
});

describe('planned breakpoints on the recorded transcripts (request bodies, no server)', () => {
  it('any boundaries, governed or raw: at most four legal markers, the only difference from the unmarked body; the last boundary is marked', () => {
    fc.assert(
      fc.property(
        arbitraryPlannedRequest(recordedSessions(), tools),
        ({ messages, plan, governed: g }) => {
          const body = buildOpenAIParams({ messages, tools, cacheBreakpoints: plan }, 'anthropic/claude-test');
          expect(cacheViolations(body)).toEqual([]);
          expect(unmarked(body)).toEqual(unmarked(buildOpenAIParams({ messages, tools }, 'anthropic/claude-test', { cacheControl: false })));
          // The last boundary gets its breakpoint, on the newest message that can carry one.
          if (g && plan.last !== undefined) {
            const out = body.messages as Rec[];
            const paths = cacheControlPaths(body).filter((p) => p.startsWith('messages.'));
            const newest = Math.max(...paths.map((p) => Number(p.split('.')[1])));
            const markable = (m: Rec) => (typeof m.content === 'string' ? m.content.trim() !== '' : Array.isArray(m.content) && m.content.length > 0);
            for (let k = newest + 1; k < out.length; k++) expect(markable(out[k])).toBe(false);
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
