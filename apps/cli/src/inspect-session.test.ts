import { describe, expect, it } from 'vitest';
import { MemoryArtifactStore, createUsageCalibrator, govern } from '@nanobot/governor';
import { LEGACY_FAILURE_TEXTS, createEstimator, estimatePromptTokens, toolFailureRow, toolTraitsTable, turnFailureRow } from '@nanobot/schema';
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

/** read_file's traits as the built-in declares them (the CLI passes the registry's `toolTraits()`). */
const toolTraits = toolTraitsTable([['read_file', { readOnly: true, compactable: true, rereadable: true }]]);

function inspect(messages: Message[], contextWindowTokens: number, toolDefs: typeof tools = tools, maxOutputTokens?: number) {
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
    toolTraits,
    contextWindowTokens,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
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
    // No maxTokens: the governor reserves an eighth of the window (rounded up to 256) for the
    // reply, and the inspection shows that number, not a fixed 4,096.
    expect(x.budget).toMatchObject({ maxOutputTokens: 1792, replyReserveSource: 'window', budget: 14_000 - 1792 - 1024, fits: true });
  });

  it('a clean history is sent as stored; a finished turn is history, not in flight', () => {
    const x = inspect([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], 65_536);
    expect(x.counts).toEqual({});
    expect(x.timeline.map((e) => `${e.index}:${e.role}:${e.sent}:${e.marks.join(',')}`)).toEqual(['0:system:true:', '1:user:true:', '2:assistant:true:']);
  });

  it('marks the messages of an unfinished latest turn as in flight', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a"}' } };
    const x = inspect([{ role: 'user', content: 'read a' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'A' }], 65_536);
    expect(x.timeline.filter((e) => e.marks.includes('in-flight')).map((e) => e.role)).toEqual(['assistant', 'tool']);
  });

  it('stored failures are matched to the notes they replay as, in every stored form', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a"}' } };
    for (const [toolRow, turnRow] of [
      [toolFailureRow({ id: 'c1', name: 'read_file' }), turnFailureRow('interrupted')],
      [{ role: 'tool', tool_call_id: 'c1', name: 'read_file', content: LEGACY_FAILURE_TEXTS.toolInterrupted }, { role: 'assistant', content: LEGACY_FAILURE_TEXTS.turnInterrupted }],
    ] as const) {
      const x = inspect([{ role: 'user', content: 'read a' }, { role: 'assistant', content: '', tool_calls: [call] }, toolRow, turnRow], 65_536);
      expect(x.timeline.map((e) => [e.storedIndex, e.role, e.sent])).toEqual([
        [undefined, 'system', true],
        [0, 'user', true],
        [1, 'assistant', true],
        [2, 'tool', true],
        [3, 'user', true],
      ]);
      expect(x.timeline.at(-1)!.preview).toContain('interrupted before a reply');
      expect(x.counts['not-replayed']).toBeUndefined();
    }
  });

  it('a window no larger than the reply reserve has no budget and never "fits"', () => {
    // The default reserve (no maxTokens) is at least 512 tokens; with the 1,024 margin a window of
    // 1,536 or less has no room for a request.
    for (const window of [1024, 1536]) {
      const x = inspect([{ role: 'user', content: 'hi' }], window);
      expect(x.budget).toMatchObject({ budget: 0, maxOutputTokens: 512, replyReserveSource: 'window', windowTooSmall: true, fits: false });
    }
    expect(inspect([{ role: 'user', content: 'hi' }], 1536 + 500).budget).toMatchObject({ budget: 500, windowTooSmall: false });
    // A configured reply size is the reserve, whatever the window.
    for (const window of [4096, 4096 + 1024]) {
      const x = inspect([{ role: 'user', content: 'hi' }], window, tools, 4096);
      expect(x.budget).toMatchObject({ budget: 0, maxOutputTokens: 4096, replyReserveSource: 'maxOutputTokens', windowTooSmall: true, fits: false });
    }
    expect(inspect([{ role: 'user', content: 'hi' }], 4096 + 1024 + 500, tools, 4096).budget).toMatchObject({ budget: 500, windowTooSmall: false });
  });

  it('says when the tool definitions alone take more than a quarter of the budget, naming where they come from and the fix for each', () => {
    const many = deepFreeze(
      Array.from({ length: 48 }, (_, i) => ({
        type: 'function' as const,
        function: { name: `mcp_fs_tool_${i}`, description: `Tool number ${i}: ${'does a thing with files and directories. '.repeat(6)}`, parameters: { type: 'object', properties: { path: { type: 'string', description: 'a path' } }, required: ['path'] } },
      })),
    );
    const withServers = (mcpServerOf?: (name: string) => string | undefined) =>
      inspectSession({
        key: 'k',
        storedMessages: deepFreeze([{ role: 'user', content: 'hi' }]),
        history: deepFreeze([{ role: 'user', content: 'hi' }]),
        lastConsolidated: 0,
        sections: [{ name: 'identity', text: '# nanobot' }],
        separator: '\n\n---\n\n',
        tools: many,
        contextWindowTokens: 12_000,
        artifactStore: new MemoryArtifactStore({ root: '/ws' }),
        configPath: '/ws/.nanobot/config.json',
        ...(mcpServerOf ? { mcpServerOf } : {}),
      }).toolsWarning;
    const tight = inspect([{ role: 'user', content: 'hi' }], 12_000, many);
    expect(tight.tools.tokens).toBeGreaterThan(tight.budget.budget / 4);
    // From an MCP server: that server's enabledTools.
    const mcp = withServers(() => 'fs');
    expect(mcp).toMatch(/^the 48 tool definitions of MCP server "fs" take [\d,]+ tokens, \d+% of the 9,440-token budget, on every request; /);
    expect(mcp).toContain('"enabledTools" in the entry "fs" of "mcpServers" in /ws/.nanobot/config.json');
    expect(mcp).not.toContain('"tools"');
    // Built in: how to turn their groups off in the config file; no MCP server to point at.
    const builtin = withServers();
    expect(builtin).toMatch(/^the 48 built-in tool definitions take [\d,]+ tokens, /);
    // Both: how much each source takes.
    const mixed = withServers((name) => (name.endsWith('_1') ? 'fs' : undefined));
    expect(mixed).toMatch(/^the 48 tool definitions take [\d,]+ tokens \(\d+ built-in: [\d,]+; 1 from MCP server "fs": [\d,]+\), /);
    expect(builtin).not.toContain('enabledTools');
    const execs = deepFreeze([...many.slice(2), ...['exec', 'web_fetch'].map((name) => ({ ...many[0], function: { ...many[0].function, name } }))]);
    const grouped = inspectSession({
      key: 'k',
      storedMessages: [{ role: 'user', content: 'hi' }],
      history: [{ role: 'user', content: 'hi' }],
      lastConsolidated: 0,
      sections: [{ name: 'identity', text: '# nanobot' }],
      separator: '\n',
      tools: execs,
      contextWindowTokens: 12_000,
      artifactStore: new MemoryArtifactStore({ root: '/ws' }),
      configPath: '/ws/.nanobot/config.json',
    }).toolsWarning;
    expect(grouped).toMatch(/turn off built-in tools you do not use with "tools": \{ "exec": false \([\d,]+ tokens\), "web": false \([\d,]+ tokens\) \} in \/ws\/.nanobot\/config.json/);
    expect(inspect([{ role: 'user', content: 'hi' }], 200_000, many).toolsWarning).toBeNull();
    expect(inspect([{ role: 'user', content: 'hi' }], 12_000).toolsWarning).toBeNull();
  });

  it('governs and counts as `run` does for the model: its tokenizer, the usage calibration, the same request figures', () => {
    const calibrator = createUsageCalibrator();
    calibrator.observe({ model: 'gpt-4o', estimated: 1000, actual: 1500 });
    const long = 'The quick brown fox — ünïcödé, emoji 🦊, and some code: `const x = [1, 2, 3];` '.repeat(40);
    const stored = deepFreeze<Message[]>([
      { role: 'user', content: long },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'a "quoted" path/ünï.txt' }) } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: long },
      { role: 'user', content: 'and now?' },
    ]);
    const sections = deepFreeze([{ name: 'identity', text: '# nanobot' }, { name: 'tool_contract', text: 'Use tools.' }]);
    const history = deepFreeze(getHistory({ messages: stored, lastConsolidated: 0 }));
    const x = inspectSession({
      key: 'k',
      storedMessages: stored,
      history,
      lastConsolidated: 0,
      sections,
      separator: '\n\n---\n\n',
      tools,
      contextWindowTokens: 20_000,
      model: 'gpt-4o',
      calibrator,
      artifactStore: new MemoryArtifactStore({ root: '/ws' }),
    });
    // What the runner's request would be: the governor with the options `run` passes (no estimator given).
    const request: Message[] = [{ role: 'system', content: sections.map((s) => s.text).join('\n\n---\n\n') }, ...history];
    const run = govern(request, {
      contextWindowTokens: 20_000,
      maxToolResultChars: 16_000,
      inflightStartIndex: request.length,
      compactedToolCallIds: new Set<string>(),
      tools,
      sessionKey: 'k',
      model: 'gpt-4o',
      calibrator,
    }).report;
    expect(x.budget).toMatchObject({ model: 'gpt-4o', tokenizer: 'o200k_base', tokensAfter: run.tokensAfter, tokensEstimated: run.tokensEstimated, tokensCalibrated: run.tokensCalibrated, inputBudget: run.inputBudget, budget: run.budget });
    // The reply reserve shown is the one the governor sized with: an eighth of 20,000, rounded up to 256.
    expect(run.replyReserve).toEqual({ tokens: 2560, source: 'window' });
    expect(x.budget).toMatchObject({ maxOutputTokens: 2560, replyReserveSource: 'window', inputBudget: 20_000 - 2560 - 1024 });
    expect(x.budget.tokensCalibrated!).toBeGreaterThan(x.budget.tokensAfter);
    // Counted in o200k as the provider sees it, not with the reference's cl100k estimate.
    const o200k = createEstimator({ tokenizer: 'o200k_base' });
    expect(x.budget.tokensAfter).toBe(o200k.promptTokens(request, tools)[0]);
    expect(x.budget.tokensAfter).not.toBe(estimatePromptTokens(request, tools));
    expect(x.tools.tokens).toBe(o200k.toolsTokens(tools));
    for (const entry of x.timeline) if (entry.index !== null) expect(entry.tokens).toBe(o200k.messageTokens(request[entry.index]));

    // Without a model: cl100k, no calibration figures.
    const plain = inspect([...stored], 20_000);
    expect(plain.budget).toMatchObject({ model: null, tokenizer: 'cl100k_base' });
    expect(plain.budget.tokensCalibrated).toBeUndefined();
    expect(plain.budget.tokensAfter).not.toBe(x.budget.tokensAfter);
  });
});

