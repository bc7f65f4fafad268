import { describe, expect, it } from 'vitest';
import { ValidationError } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { BudgetExceededError } from '../../budget-exceeded-error.js';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { anthropicRequestViolations } from '../../test-support/anthropic-request-rules.js';
import type { AnthropicMessageLike } from './anthropic-types.js';
import { governAnthropic } from './govern-anthropic.js';

const thinking = { type: 'thinking', thinking: 'I should list the files.', signature: 'EqQBCkYIARgCIkD+/sig==' } as const;
const changedSteps = (r: { report: { steps: { step: string; changed: boolean }[] } }) => r.report.steps.filter((s) => s.changed).map((s) => s.step);

describe('governAnthropic', () => {
  it('keeps a thinking block, byte-exact and first in its turn, when the governor rewrites that turn (reused tool_use id)', () => {
    const messages = deepFreeze<AnthropicMessageLike[]>([
      { role: 'user', content: 'list twice' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: { cmd: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }] },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'Again.' }, { type: 'tool_use', id: 'toolu_1', name: 'exec', input: { cmd: 'ls -a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a .b' }] },
      { role: 'user', content: 'thanks' },
    ] as AnthropicMessageLike[]);
    const out = governAnthropic({ messages });
    expect(anthropicRequestViolations(out.messages)).toEqual([]);
    const turn = out.messages[3];
    expect(turn).not.toBe(messages[3]);
    const blocks = turn.content as unknown as readonly Record<string, unknown>[];
    expect(blocks[0]).toBe((messages[3].content as readonly object[])[0]);
    expect(blocks[1]).toBe((messages[3].content as readonly object[])[1]);
    expect(blocks[2]).toMatchObject({ type: 'tool_use', id: 'toolu_1__2', name: 'exec', input: { cmd: 'ls -a' } });
    expect(blocks[2].input).toBe((messages[3].content as unknown as readonly Record<string, unknown>[])[2].input);
    expect(out.messages[4].content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1__2', content: 'a .b' }, { type: 'text', text: 'thanks' }]);
    expect(out.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
    out.messages.slice(0, 3).forEach((m, i) => expect(m).toBe(messages[i]));
    expect(changedSteps(out)).toEqual(['repairToolCallIds']);
  });

  it('offloads a large result and keeps its is_error and cache_control; images, documents and server tool blocks pass through', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }, cache_control: { type: 'ephemeral' } };
    const doc = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } };
    const server = [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'x', encrypted_content: 'E' }] },
    ];
    const messages = deepFreeze([
      { role: 'user', content: [{ type: 'text', text: 'look' }, image, doc] },
      { role: 'assistant', content: [...server, { type: 'tool_use', id: 'toolu_1', name: 'exec', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Error: '.repeat(2000), is_error: true, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'why?' }] },
    ] as AnthropicMessageLike[]);
    const store = new MemoryArtifactStore();
    const out = governAnthropic({ system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages }, { maxToolResultChars: 1000, artifactStore: store, sessionKey: 's' });
    expect(anthropicRequestViolations(out.messages)).toEqual([]);
    expect(out.messages[0]).toBe(messages[0]);
    expect(out.messages[1]).toBe(messages[1]);
    const [result, text] = out.messages[2].content as unknown as readonly Record<string, unknown>[];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, cache_control: { type: 'ephemeral' } });
    expect(String(result.content)).toMatch(/^\[output shortened to fit the context: 1,200 of 14,000 characters shown; the full output is at memory:/);
    expect(text).toBe((messages[2].content as readonly object[])[1]);
    expect(out.report.steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults.map((t) => t.action)).toContain('offloaded');
  });

  it('drops aborted assistant turns and whitespace next to tool calls, and says so in the report', () => {
    const messages = deepFreeze([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'hello?' },
      { role: 'assistant', content: [{ type: 'text', text: '\n\n' }, { type: 'tool_use', id: 'toolu_1', name: 'exec', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }, { type: 'text', text: '  ' }, { type: 'text', text: 'go on' }] },
    ] as AnthropicMessageLike[]);
    const out = governAnthropic({ messages });
    expect(anthropicRequestViolations(messages)).not.toEqual([]);
    expect(anthropicRequestViolations(out.messages)).toEqual([]);
    expect(out.messages).toEqual([
      { role: 'user', content: 'hi\n\nhello?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }, { type: 'text', text: 'go on' }] },
    ]);
    const legal = out.report.steps.find((s) => s.step === 'legalizeForTarget')!;
    expect(legal.removed.map((r) => r.reason)).toEqual(expect.arrayContaining(['empty-assistant', 'blank-text-removed']));
    expect(out.report.target).toBe('anthropic');
  });

  it('returns the system prompt as given, and none when none was given', () => {
    const messages = deepFreeze([{ role: 'user', content: 'hi' }] as AnthropicMessageLike[]);
    const system = deepFreeze([{ type: 'text' as const, text: 'Be brief.' }]);
    expect(governAnthropic({ system, messages }).system).toBe(system);
    const without = governAnthropic({ messages });
    expect('system' in without).toBe(false);
    expect(without.messages[0]).toBe(messages[0]);
  });

  it('sends a system turn inside messages as a marked user-side note, keeping the top-level system prompt stable', () => {
    const messages = deepFreeze([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'system', content: 'The user is on mobile.' },
      { role: 'user', content: 'short answer please' },
    ] as AnthropicMessageLike[]);
    const out = governAnthropic({ system: 'Be brief.', messages });
    expect(out.system).toBe('Be brief.');
    expect(anthropicRequestViolations(out.messages)).toEqual([]);
    expect(JSON.stringify(out.messages[2])).toContain('[System message]');
    expect(JSON.stringify(out.messages[2])).toContain('The user is on mobile.');
    expect(JSON.stringify(out.messages[2])).toContain('short answer please');
  });

  it('counts tools in the budget and reports fits; shrinks, throws or sends an oversized newest turn as asked', () => {
    const huge = 'word '.repeat(6000);
    const messages = deepFreeze([{ role: 'user', content: huge }] as AnthropicMessageLike[]);
    const tools = [{ name: 'exec', description: 'Run a command.', input_schema: { type: 'object', properties: { cmd: { type: 'string' } } } }];
    const plain = governAnthropic({ messages: [{ role: 'user', content: 'hi' }] }, { estimateTokens: true });
    const withTools = governAnthropic({ messages: [{ role: 'user', content: 'hi' }], tools }, { estimateTokens: true });
    expect(withTools.report.tokensAfter!).toBeGreaterThan(plain.report.tokensAfter!);
    const shrunk = governAnthropic({ messages }, { contextBlockLimit: 2000, contextWindowTokens: 2000 });
    expect(shrunk.report.fits).toBe(true);
    expect(anthropicRequestViolations(shrunk.messages)).toEqual([]);
    expect(() => governAnthropic({ messages }, { contextBlockLimit: 2000, contextWindowTokens: 2000, onOverflow: 'throw' })).toThrow(BudgetExceededError);
    const sent = governAnthropic({ messages }, { contextBlockLimit: 2000, contextWindowTokens: 2000, onOverflow: 'send' });
    expect(sent.report.fits).toBe(false);
    expect(sent.messages[0]).toBe(messages[0]);
  });

  it('rejects input that is not an Anthropic history with a ValidationError, before doing anything', () => {
    const bad: unknown[] = [
      null,
      { messages: 'hi' },
      { messages: [{ role: 'tool', content: 'x' }] },
      { messages: [{ role: 'user', content: 42 }] },
      { messages: [{ role: 'user', content: [{ text: 'no type' }] }] },
      { system: 7, messages: [] },
      { messages: [], tools: {} },
    ];
    for (const input of bad) expect(() => governAnthropic(input as never), JSON.stringify(input)).toThrow(ValidationError);
    expect(() => governAnthropic({ messages: [] }, { contextWindowTokens: 'big' as never })).toThrow(ValidationError);
  });

  it('governs the same history again to the same turn objects (warm caches, stable prefix)', () => {
    const messages = deepFreeze([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '' }, { type: 'text', text: 'and?' }] },
    ] as AnthropicMessageLike[]);
    const a = governAnthropic({ messages });
    const b = governAnthropic({ messages });
    expect(a.messages[2]).not.toBe(messages[2]); // the empty result got its marker
    expect(b.messages).toEqual(a.messages);
    expect((b.messages[2].content as readonly object[])[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '(exec completed with no output)' });
  });

  describe('server compaction blocks (anchors)', () => {
    const turn = (n: number): AnthropicMessageLike[] => [
      { role: 'user', content: `Question ${n}: ${'why does the build fail on the second run '.repeat(12)}` },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: `toolu_${n}`, name: 'exec', input: { cmd: 'make' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: 'make: error '.repeat(40) }] },
      { role: 'assistant', content: `Answer ${n}: ${'the cache is stale '.repeat(20)}` },
    ] as AnthropicMessageLike[];
    const compaction = { type: 'compaction', content: `Summary: ${'the user fixed the build cache and moved on to tests. '.repeat(8)}` };
    const compacted: AnthropicMessageLike = { role: 'assistant', content: [compaction, { type: 'text', text: 'Continuing from the summary.' }] } as AnthropicMessageLike;
    const history = (before: number, after: number) => deepFreeze<AnthropicMessageLike[]>([
      ...Array.from({ length: before }, (_, n) => turn(n)).flat(),
      { role: 'user', content: 'Keep going.' },
      compacted,
      ...Array.from({ length: after }, (_, n) => turn(100 + n)).flat(),
      { role: 'user', content: 'What next?' },
    ]);

    it('over budget, starts at the compaction turn (the API drops what precedes the block), byte-exact, with a user turn before it', () => {
      const messages = history(12, 1);
      const out = governAnthropic({ messages }, { contextWindowTokens: 100_000, contextBlockLimit: 1500 });
      expect(anthropicRequestViolations(out.messages)).toEqual([]);
      expect(out.messages[0].role).toBe('user');
      expect(out.messages[1]).toBe(messages[messages.indexOf(compacted)]);
      expect(out.messages.at(-1)).toBe(messages.at(-1));
      expect(out.report.cut?.serverCompaction).toBe('cut-at-anchor');
    });

    it('a cut after the compaction turn keeps it in front, the same object, and the newest user turn', () => {
      const messages = history(1, 12);
      const out = governAnthropic({ messages }, { contextWindowTokens: 100_000, contextBlockLimit: 1500 });
      expect(anthropicRequestViolations(out.messages)).toEqual([]);
      expect(out.messages).toContain(messages[messages.indexOf(compacted)]);
      expect(out.messages.length).toBeLessThan(messages.length - messages.indexOf(compacted));
      expect(out.messages.at(-1)).toBe(messages.at(-1));
      expect(out.report.cut?.serverCompaction).toBe('anchor-kept');
    });

    it('shrinking the newest turn never touches the block', () => {
      const huge: AnthropicMessageLike = { role: 'assistant', content: [compaction, { type: 'text', text: 'detail '.repeat(3000) }] } as AnthropicMessageLike;
      const messages = deepFreeze<AnthropicMessageLike[]>([{ role: 'user', content: 'Go.' }, huge, { role: 'user', content: 'And?' }]);
      const out = governAnthropic({ messages }, { contextWindowTokens: 100_000, contextBlockLimit: 800, onOverflow: 'shrink' });
      const blocks = out.messages[1].content as unknown as readonly object[];
      expect(blocks[0]).toBe(compaction);
      expect(JSON.stringify(out.messages).length).toBeLessThan(JSON.stringify(messages).length / 2);
    });
  });
});
