// Planned prompt-cache breakpoints through the real @anthropic-ai/sdk against a local wire
// server that checks the Messages API's rules (cache rules included): the body carries
// `cache_control` exactly at the governor's reported boundaries, at most four, never on a
// thinking or empty block; without planned boundaries the fixed rule stays.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { govern } from '@nanobot/governor';
import type { CacheBreakpoints, Message, ToolDefinition } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { AnthropicProvider } from './anthropic-provider.js';
import { buildAnthropicParams } from './anthropic-request.js';
import { ANTHROPIC_MAX_CACHE_BREAKPOINTS, mayCarryCacheControl } from './anthropic-cache-breakpoints.js';
import { message, anthropicTextStream } from './test-support/anthropic-wire.js';
import { anthropicBodyViolations, cacheControlPaths, replyCheckedAnthropic } from './test-support/anthropic-rules.js';
import { arbitraryPlannedRequest, recordedSessions } from './test-support/planned-requests.js';
import { WireServer, replySse } from './test-support/wire-server.js';

type Rec = Record<string, unknown>;
let server: WireServer;

beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const provider = (extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) =>
  new AnthropicProvider({ model: 'claude-test', apiKey: 'sk-ant-test', baseUrl: server.url, retry: { maxAttempts: 1 }, ...extra });

const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  { type: 'function', function: { name: 'mcp_docs_search', description: 'Search docs', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
];
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.md"}' } });
const sys = (content: string): Message => ({ role: 'system', content });
const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const result = (id: string, content: string): Message => ({ role: 'tool', tool_call_id: id, name: 'read_file', content });

/** Sends `messages` through the provider to the checking server and returns the body it got. */
async function send(messages: readonly Message[], cacheBreakpoints?: CacheBreakpoints, withTools = true): Promise<Rec> {
  server.enqueue(replyCheckedAnthropic(message([{ type: 'text', text: 'ok' }])));
  const res = await provider().chat({ messages, ...(withTools ? { tools } : {}), ...(cacheBreakpoints ? { cacheBreakpoints } : {}), maxTokens: 256 });
  expect(res.content).toBe('ok');
  const body = server.requests.at(-1)!.body as Rec;
  expect(anthropicBodyViolations(body)).toEqual([]);
  return body;
}

/** The body path of the last block the governed message `m` became (found by its text or id). */
function pathOf(body: Rec, m: Message): string {
  if (m.role === 'system') return `system.${(body.system as Rec[]).length - 1}`;
  const turns = body.messages as { content: Rec[] }[];
  for (let t = turns.length - 1; t >= 0; t--) {
    const blocks = turns[t].content;
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j];
      if (m.role === 'tool' && b.type === 'tool_result' && b.tool_use_id === m.tool_call_id) return `messages.${t}.content.${j}`;
      if (m.role === 'user' && typeof m.content === 'string' && b.type === 'text' && b.text === m.content) return `messages.${t}.content.${j}`;
      if (m.role === 'assistant' && m.tool_calls?.length && b.type === 'tool_use' && b.id === m.tool_calls.at(-1)!.id) return `messages.${t}.content.${j}`;
      if (m.role === 'assistant' && !m.tool_calls?.length && b.type === 'text' && b.text === m.content) return `messages.${t}.content.${j}`;
    }
  }
  throw new Error(`message not found in the body: ${JSON.stringify(m).slice(0, 80)}`);
}

/** A long session whose early turns do not fit a small window. */
function longSession(turns: number): Message[] {
  const out: Message[] = [sys('You are a test agent.')];
  for (let t = 0; t < turns; t++) {
    out.push(user(`question ${t}: ${'lorem ipsum dolor sit amet '.repeat(20)}`));
    if (t % 3 === 0) out.push({ role: 'assistant', content: '', tool_calls: [call(`c${t}`)] }, result(`c${t}`, `file ${t} `.repeat(100)));
    out.push(answer(`answer ${t}: ${'consectetur adipiscing elit '.repeat(20)}`));
  }
  out.push(user('and now?'));
  return out;
}

describe('planned breakpoints on the wire', () => {
  it('a tool loop: the last tool, the system prompt, the previous request\'s end and the last message', async () => {
    const history = deepFreeze<Message[]>([
      sys('You are nanobot.'),
      user('read a.md then b.md'),
      { role: 'assistant', content: 'on it', tool_calls: [call('c1')] },
      result('c1', 'A'),
      { role: 'assistant', content: '', thinking_blocks: [{ type: 'thinking', thinking: 'next b', signature: 'sig' }], tool_calls: [call('c2')] },
      result('c2', 'B'),
    ]);
    const { messages, report } = govern(history, { tools });
    expect(report.cacheBoundaries).toEqual({ tools: true, instructions: 0, previous: 3, last: 5 });
    const body = await send(messages, report.cacheBoundaries);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.2.content.0', 'messages.4.content.0', 'system.0', 'tools.1']);
    // The thinking block of the last assistant turn is replayed untouched.
    expect((body.messages as { content: Rec[] }[])[3].content[0]).toEqual({ type: 'thinking', thinking: 'next b', signature: 'sig' });
  });

  it('a first request has three boundaries, so three breakpoints', async () => {
    const { messages, report } = govern(deepFreeze([sys('s'), user('hi')]), { tools });
    const body = await send(messages, report.cacheBoundaries);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'system.0', 'tools.1']);
  });

  it('a snipped history with tools: five candidates, the cut gives way (at most four)', async () => {
    const history = deepFreeze(longSession(40));
    const { messages, report } = govern(history, { tools, contextWindowTokens: 8_000, maxOutputTokens: 1_000 });
    const b = report.cacheBoundaries;
    expect(b.cut).toBeDefined();
    expect(new Set([b.cut, b.previous, b.last, b.instructions]).size).toBe(4);
    const body = await send(messages, b);
    const paths = cacheControlPaths(body);
    expect(paths).toHaveLength(ANTHROPIC_MAX_CACHE_BREAKPOINTS);
    expect(paths.sort()).toEqual([pathOf(body, messages[b.last!]), pathOf(body, messages[b.previous!]), pathOf(body, messages[b.instructions!]), 'tools.1'].sort());
    expect(paths).not.toContain(pathOf(body, messages[b.cut!]));
  });

  it('a snipped history without tools: the cut takes the free slot', async () => {
    const history = deepFreeze(longSession(40));
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_000 });
    const b = report.cacheBoundaries;
    expect(b.tools).toBeUndefined();
    const body = await send(messages, b, false);
    expect(cacheControlPaths(body).sort()).toEqual([b.last!, b.previous!, b.instructions!, b.cut!].map((i) => pathOf(body, messages[i])).sort());
  });

  it('never marks a thinking block or a message that became no block: the nearest block before it', async () => {
    const messages = deepFreeze<Message[]>([
      sys('s'),
      user('u1'),
      // Only thinking, no text: its one block may not carry cache_control.
      { role: 'assistant', content: null, thinking_blocks: [{ type: 'redacted_thinking', data: 'xyz' }] },
      user('u2'),
      // No content at all (an aborted turn): the conversion drops it.
      { role: 'assistant', content: null },
      user('u3'),
    ]);
    const body = await send(messages, { instructions: 0, previous: 2, cut: 4, last: 5 }, false);
    // previous (2) → u1's text; cut (4) → u2's text (merged with u3 into one turn); last → u3.
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'u1', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xyz' }] },
      { role: 'user', content: [{ type: 'text', text: 'u2', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'u3', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(cacheControlPaths(body)).toHaveLength(4);
  });

  it('ignores indices out of range and places coinciding boundaries once', async () => {
    const messages = deepFreeze([sys('s'), user('hi')]);
    const body = await send(messages, { tools: true, instructions: 0, previous: 1, cut: 7, last: 1 });
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'system.0', 'tools.1']);
  });

  it('without planned boundaries: the fixed rule (system, second-to-last turn, built-in and last tool)', async () => {
    const messages = deepFreeze<Message[]>([sys('s'), user('q1'), answer('a1'), user('q2')]);
    const body = await send(messages);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.1.content.0', 'system.0', 'tools.0', 'tools.1']);
  });

  it('cacheControl: false sends no markers even with planned boundaries', async () => {
    server.enqueue(replyCheckedAnthropic(message([{ type: 'text', text: 'ok' }])));
    await provider({ cacheControl: false }).chat({ messages: [sys('s'), user('hi')], tools, cacheBreakpoints: { tools: true, instructions: 0, last: 1 } });
    expect(cacheControlPaths(server.requests[0].body as Rec)).toEqual([]);
  });

  it('the streaming call places the same breakpoints', async () => {
    const history = deepFreeze<Message[]>([sys('s'), user('go'), { role: 'assistant', content: '', tool_calls: [call('c1')] }, result('c1', 'A')]);
    const { messages, report } = govern(history, { tools });
    server.enqueue(replySse(anthropicTextStream(['o', 'k']), { done: false }));
    for await (const event of provider().stream({ messages, tools, cacheBreakpoints: report.cacheBoundaries })) void event;
    const body = server.requests[0].body as Rec;
    expect(anthropicBodyViolations(body)).toEqual([]);
    expect(cacheControlPaths(body).sort()).toEqual(['messages.0.content.0', 'messages.2.content.0', 'system.0', 'tools.1']);
  });
});

describe('planned breakpoints on the recorded transcripts (request bodies, no server)', () => {
  it('any boundaries, governed or raw: at most four markers, none on an illegal block, the rules hold', () => {
    fc.assert(
      fc.property(
        arbitraryPlannedRequest(recordedSessions(), tools),
        ({ messages, plan, governed: g }) => {
          const body = buildAnthropicParams({ messages, tools, cacheBreakpoints: plan }, 'claude-test');
          const paths = cacheControlPaths(body);
          expect(paths.length).toBeLessThanOrEqual(ANTHROPIC_MAX_CACHE_BREAKPOINTS);
          for (const p of paths) {
            const [where, a, , b] = p.split('.');
            const block = (where === 'messages' ? (body.messages as { content: Rec[] }[])[Number(a)].content[Number(b)] : (body[where] as Rec[])[Number(a)]) as Rec;
            if (where !== 'tools') expect(mayCarryCacheControl(block)).toBe(true);
          }
          // Governed copies are legal for Anthropic as they are; markers must keep them so.
          if (g) expect(anthropicBodyViolations(body)).toEqual([]);
          // The last boundary always gets its breakpoint (it is what the next request reads); a
          // history of instructions alone ends in `system`, before the placeholder user turn.
          if (g && plan.last !== undefined && messages[plan.last].role !== 'system') expect(paths.some((p) => p.startsWith(`messages.${(body.messages as unknown[]).length - 1}.`))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
