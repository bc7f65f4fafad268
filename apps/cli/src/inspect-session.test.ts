import { describe, expect, it } from 'vitest';
import { MemoryArtifactStore } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { getHistory } from '@nanobot/session';
import { inspectSession } from './inspect-session.js';
import { governanceFixtureMessages } from './test-support/session-fixture.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

const tools = deepFreeze([{ type: 'function' as const, function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }]);

function inspect(messages: Message[], contextWindowTokens: number, toolDefs: typeof tools = tools) {
  const stored = deepFreeze(messages);
  const history = deepFreeze(getHistory({ messages: stored, lastConsolidated: 0 }));
  return inspectSession({
    key: 'k',
    storedMessages: stored,
    history,
    lastConsolidated: 0,
    sections: deepFreeze([{ name: 'identity', text: '# nanobot' }, { name: 'tool_contract', text: 'Use tools.' }]),
    separator: '\n\n---\n\n',
    tools: toolDefs,
    contextWindowTokens,
    artifactStore: new MemoryArtifactStore({ root: '/ws' }),
  });
}

describe('inspectSession', () => {
  it('accounts for every stored message and every governance action, without touching its (frozen) input', () => {
    const messages = governanceFixtureMessages();
    const x = inspect(messages, 14_000);
    expect(x.counts).toMatchObject({ stripped: 5, backfilled: 1, offloaded: 1, 'not-replayed': 4 });
    expect(x.counts.compacted! + x.counts.snipped!).toBeGreaterThan(0);
    // Every stored message appears once (replayed ones by stored index, the rest as not replayed).
    const storedSeen = x.timeline.filter((e) => e.storedIndex !== undefined).map((e) => e.storedIndex).sort((a, b) => a! - b!);
    expect(storedSeen).toEqual(messages.map((_, i) => i));
    expect(new Set(storedSeen).size).toBe(storedSeen.length);
    expect(x.timeline[0]).toMatchObject({ index: 0, role: 'system', sent: true });
    expect(x.budget.budget).toBe(14_000 - 4096 - 1024);
    expect(x.budget.fits).toBe(true);
  });

  it('a clean history is sent as stored', () => {
    const x = inspect([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], 65_536);
    expect(x.counts).toEqual({ 'in-flight': 1 });
    expect(x.timeline.map((e) => `${e.index}:${e.role}:${e.sent}`)).toEqual(['0:system:true', '1:user:true', '2:assistant:true']);
  });

  it('a window no larger than the reply reserve has no budget and never "fits"', () => {
    for (const window of [1024, 4096, 4096 + 1024]) {
      const x = inspect([{ role: 'user', content: 'hi' }], window);
      expect(x.budget.budget).toBe(0);
      expect(x.budget.windowTooSmall).toBe(true);
      expect(x.budget.fits).toBe(false);
    }
    const roomy = inspect([{ role: 'user', content: 'hi' }], 4096 + 1024 + 500);
    expect(roomy.budget).toMatchObject({ budget: 500, windowTooSmall: false });
  });

  it('says when the tool definitions alone take more than a quarter of the budget, and points to enabledTools', () => {
    const many = deepFreeze(
      Array.from({ length: 48 }, (_, i) => ({
        type: 'function' as const,
        function: { name: `mcp_fs_tool_${i}`, description: `Tool number ${i}: ${'does a thing with files and directories. '.repeat(6)}`, parameters: { type: 'object', properties: { path: { type: 'string', description: 'a path' } }, required: ['path'] } },
      })),
    );
    const tight = inspect([{ role: 'user', content: 'hi' }], 12_000, many);
    expect(tight.tools.tokens).toBeGreaterThan(tight.budget.budget / 4);
    expect(tight.toolsWarning).toMatch(/^the 48 tool definitions take [\d,]+ tokens, \d+% of the 6,880-token budget, on every request; .*"enabledTools"/);
    expect(inspect([{ role: 'user', content: 'hi' }], 200_000, many).toolsWarning).toBeNull();
    expect(inspect([{ role: 'user', content: 'hi' }], 12_000).toolsWarning).toBeNull();
  });
});
