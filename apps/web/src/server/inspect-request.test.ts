import { BACKFILL_CONTENT, MemoryArtifactStore, govern } from '@nanobot/governor';
import type { GovernOptions, GovernReport } from '@nanobot/governor';
import { createEstimator, estimateMessageTokens, toolTraitsTable } from '@nanobot/schema';
import type { Message, ToolDefinition } from '@nanobot/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimelineRow } from '../shared/protocol.js';
import { preparedSessionMessages } from './demo-fixtures.js';
import { inspectRequest, summarizeMessage } from './inspect-request.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const TOOLS: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  { type: 'function', function: { name: 'grep', description: 'Search', parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] } } },
];

function call(id: string, name = 'read_file', args = '{"path":"a.txt"}'): NonNullable<Message['tool_calls']>[number] {
  return { id, type: 'function', function: { name, arguments: args } };
}

function run(transcript: Message[], options: GovernOptions & { inflightStartIndex?: number } = {}, artifactUrl?: (l: string) => string | undefined) {
  deepFreeze(transcript);
  const result = govern(transcript, { tools: TOOLS, ...options });
  const snapshot = inspectRequest({
    sessionKey: 's',
    iteration: 0,
    transcript,
    governed: result.messages,
    report: result.report,
    tools: TOOLS,
    inflightStartIndex: options.inflightStartIndex ?? transcript.length,
    sections: null,
    ...(artifactUrl ? { artifactUrl } : {}),
  });
  return { result, snapshot };
}

const messageRows = (rows: TimelineRow[]) => rows.filter((r): r is Extract<TimelineRow, { kind: 'message' }> => r.kind === 'message');
const removedRows = (rows: TimelineRow[]) => rows.filter((r): r is Extract<TimelineRow, { kind: 'removed' }> => r.kind === 'removed');

describe('inspectRequest', () => {
  it('marks a backfilled result where the governor added it', () => {
    const transcript: Message[] = [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'compare a and b' },
      { role: 'assistant', content: '', tool_calls: [call('c1'), call('c2', 'read_file', '{"path":"b.txt"}')] },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'A' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'and now?' },
    ];
    const { result, snapshot } = run(transcript, { inflightStartIndex: 6 });
    const rows = messageRows(snapshot.timeline);
    expect(rows).toHaveLength(result.messages.length);
    const backfilled = rows.filter((r) => r.marks.some((m) => m.action === 'backfilled'));
    expect(backfilled).toHaveLength(1);
    expect(backfilled[0]).toMatchObject({ role: 'tool', toolCallId: 'c2', zone: 'history', index: 4 });
    expect(result.messages[4].content).toBe(BACKFILL_CONTENT);
    expect(rows.map((r) => r.zone)).toEqual(['system', 'history', 'history', 'history', 'history', 'history', 'current']);
    expect(snapshot.actions).toEqual([expect.objectContaining({ action: 'backfilled', count: 1 })]);
    expect(removedRows(snapshot.timeline)).toEqual([]);
  });

  it('says when the tool definitions take more than a quarter of the budget, naming their source and its fix', () => {
    const many: ToolDefinition[] = deepFreeze(
      Array.from({ length: 48 }, (_, i) => ({
        type: 'function' as const,
        function: { name: `mcp_fs_tool_${i}`, description: `Tool ${i}: ${'works with files and directories. '.repeat(6)}`, parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
      })),
    );
    const describe = (contextWindowTokens: number, tools: ToolDefinition[]) => {
      const transcript: Message[] = deepFreeze([{ role: 'system', content: 'You are a test.' }, { role: 'user', content: 'hi' }]);
      const result = govern(transcript, { tools, contextWindowTokens, maxOutputTokens: 1024 });
      return inspectRequest({
        sessionKey: 's',
        iteration: 0,
        transcript,
        governed: result.messages,
        report: result.report,
        tools,
        inflightStartIndex: 1,
        sections: null,
        mcpServerOf: (name) => (name.startsWith('mcp_fs_') ? 'fs' : undefined),
        toolSwitches: [{ flag: '--no-exec', tools: ['exec'] }, { flag: '--no-web', tools: ['grep'] }],
      }).budget;
    };
    const tight = describe(12_000, many);
    expect(tight.tools).toBeGreaterThan(tight.limit / 4);
    // MCP tools: the server named, and its enabledTools; no built-in switch (none of them is built in).
    expect(tight.toolsWarning).toMatch(/^The 48 tool definitions of MCP server "fs" take [\d,]+ tokens, \d+% of the [\d,]+-token budget, on every request/);
    expect(tight.toolsWarning).toContain('"enabledTools" in "fs"');
    expect(tight.toolsWarning).not.toContain('--no-');
    // Built-in tools: how to leave them out, never enabledTools (there is no MCP server).
    const builtins: ToolDefinition[] = deepFreeze(many.map((t, i) => ({ ...t, function: { ...t.function, name: i === 0 ? 'grep' : `builtin_${i}` } })));
    const plain = describe(12_000, builtins);
    expect(plain.toolsWarning).toMatch(/^The 48 built-in tool definitions take [\d,]+ tokens, /);
    expect(plain.toolsWarning).toContain('--no-web (grep: ');
    expect(plain.toolsWarning).not.toContain('enabledTools');
    expect(describe(200_000, many).toolsWarning).toBeNull();
    expect(describe(12_000, TOOLS).toolsWarning).toBeNull();
    expect(describe(0, many).toolsWarning).toBeNull();
  });

  it('shows snipped history as one removed block right after the system prompt', () => {
    const transcript: Message[] = [{ role: 'system', content: 'You are a test.' }, ...preparedSessionMessages(20), { role: 'user', content: 'status?' }];
    const { result, snapshot } = run(transcript, { contextWindowTokens: 4000, maxOutputTokens: 512, inflightStartIndex: transcript.length });
    const removed = removedRows(snapshot.timeline);
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({ reason: 'snipped', step: 'snipHistory' });
    expect(removed[0].messages).toHaveLength(transcript.length - result.messages.length + 1 /* the backfilled result is added */);
    expect(snapshot.timeline[1]).toBe(removed[0]);
    expect(removed[0].messages[0].summary).toContain('Turn 1:');
    expect(removed[0].tokens).toBe(removed[0].messages.reduce((n, m) => n + m.tokens, 0));
    const { budget } = snapshot;
    expect(budget.limit).toBe(result.report.budget);
    expect(budget.used).toBe(budget.system + budget.tools + budget.history + budget.current + budget.overhead);
    expect(budget.used).toBe(result.report.tokensAfter);
    expect(budget.transcriptTokens).toBe(result.report.tokensBefore);
    expect(budget.headroom).toBe(Math.max(0, budget.limit - budget.used));
    expect(removed[0].why).toBe(`Left out to fit the ${budget.limit.toLocaleString('en-US')}-token budget: the governor cuts the oldest history first, and what it keeps starts at a user message.`);
    expect(snapshot.counts).toEqual({ transcript: transcript.length, sent: result.messages.length - 1, removed: { snipped: removed[0].messages.length }, added: 1, request: result.messages.length });
    expect(snapshot.countsText).toBe(`${result.messages.length - 1} of the ${transcript.length} messages sent; ${removed[0].messages.length} snipped; 1 backfilled`);
    expect(budget.tools).toBeGreaterThan(0);
    expect(budget.transcriptTokens).toBeGreaterThan(budget.used);
    expect(snapshot.actions.map((a) => a.action).sort()).toEqual(['backfilled', 'snipped']);
  });

  it('shows stripped placeholders and orphan results where they were', () => {
    const transcript: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: '[Previous assistant message omitted.]' },
      { role: 'user', content: 'two' },
      { role: 'tool', tool_call_id: 'ghost', name: 'grep', content: 'orphan result' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'three' },
    ];
    // For OpenAI the two user turns the stripped placeholder leaves side by side stay apart.
    const { snapshot } = run(transcript, { target: 'openai' });
    const kinds = snapshot.timeline.map((r) => (r.kind === 'removed' ? `-${r.reason}` : r.summary));
    expect(kinds).toEqual(['sys', 'one', '-stripped', 'two', '-orphan', 'answer', 'three']);
    // The default target ('any', Anthropic included) merges them into one turn.
    const merged = run(transcript).snapshot.timeline.filter((r) => r.kind !== 'removed').map((r) => r.summary);
    expect(merged).toEqual(['sys', 'one two', 'answer', 'three']);
  });

  it('links an offloaded result to its artifact', () => {
    const store = new MemoryArtifactStore();
    const big = 'line of output\n'.repeat(2000);
    const transcript: Message[] = [
      { role: 'user', content: 'grep it' },
      { role: 'assistant', content: '', tool_calls: [call('g1', 'grep', '{"pattern":"x"}')] },
      { role: 'tool', tool_call_id: 'g1', name: 'grep', content: big },
    ];
    const seen: string[] = [];
    const { snapshot } = run(transcript, { artifactStore: store, maxToolResultChars: 4000, inflightStartIndex: 1 }, (location) => {
      seen.push(location);
      return `/artifact/${seen.length}`;
    });
    const row = messageRows(snapshot.timeline).find((r) => r.toolCallId === 'g1')!;
    expect(row.marks).toHaveLength(1);
    expect(row.marks[0]).toMatchObject({ action: 'offloaded', artifactUrl: '/artifact/1' });
    expect(row.marks[0].detail).toContain(`${big.length.toLocaleString('en-US')} chars originally`);
    expect(store.read(seen[0])).toBe(big);
    expect(row.zone).toBe('current');
  });

  it('marks in-flight tool results compacted when the running turn overflows the budget', () => {
    const filler = (word: string) => Array.from({ length: 1500 }, (_, i) => `${word} ${i}`).join(' ');
    const transcript: Message[] = [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'read the three reports' },
      { role: 'assistant', content: '', tool_calls: [call('r1', 'read_file', '{"path":"r1"}'), call('r2', 'read_file', '{"path":"r2"}')] },
      { role: 'tool', tool_call_id: 'r1', name: 'read_file', content: `ONE ${filler('alpha')}` },
      { role: 'tool', tool_call_id: 'r2', name: 'read_file', content: `TWO ${filler('beta')}` },
      // The step the model waits on: shortened if need be, never compacted (issue 29, item 1).
      { role: 'assistant', content: '', tool_calls: [call('r3', 'read_file', '{"path":"r3"}')] },
      { role: 'tool', tool_call_id: 'r3', name: 'read_file', content: `THREE ${filler('gamma')}` },
    ];
    // The traits the built-in read_file declares (the runner hands them to the governor): only a
    // declared compactable tool is compacted in the default mode.
    const toolTraits = toolTraitsTable([['read_file', { readOnly: true, compactable: true, rereadable: true }]]);
    const { result, snapshot } = run(transcript, { contextWindowTokens: 12_000, maxOutputTokens: 1024, maxToolResultChars: 100_000, inflightStartIndex: 2, toolTraits });
    const rows = messageRows(snapshot.timeline);
    expect(rows).toHaveLength(result.messages.length);
    const compacted = rows.filter((r) => r.marks.some((m) => m.action === 'compacted'));
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted.every((r) => r.role === 'tool' && r.zone === 'current')).toBe(true);
    // Each marked row really is shorter in the request than in the transcript.
    for (const row of compacted) {
      const sent = result.messages[row.index!];
      const stored = transcript.find((m) => m.tool_call_id === row.toolCallId)!;
      expect(String(sent.content).length).toBeLessThan(String(stored.content).length);
    }
    expect(snapshot.actions).toContainEqual(expect.objectContaining({ action: 'compacted', count: compacted.length }));
    expect(compacted.map((r) => r.toolCallId)).not.toContain('r3');
    expect(result.messages.some((m) => m.tool_call_id === 'r3' && String(m.content).includes('THREE'))).toBe(true);
  });

  it('shows the given prompt sections with token counts, else the system prompt whole', () => {
    const transcript = deepFreeze<Message[]>([{ role: 'system', content: 'alpha\n\n---\n\nbeta' }, { role: 'user', content: 'hi' }]);
    const { messages, report } = govern(transcript);
    const base = { sessionKey: 's', iteration: 2, transcript, governed: messages, report, tools: [], inflightStartIndex: 2 };
    const withSections = inspectRequest({ ...base, sections: [{ name: 'identity', text: 'alpha' }, { name: 'tool_contract', text: 'beta' }] });
    expect(withSections.sections.map((s) => [s.name, s.text])).toEqual([['identity', 'alpha'], ['tool_contract', 'beta']]);
    expect(withSections.sections.every((s) => s.tokens > 0)).toBe(true);
    expect(withSections.budget.tools).toBe(0);
    const whole = inspectRequest({ ...base, sections: null });
    expect(whole.sections).toEqual([expect.objectContaining({ name: 'system', text: 'alpha\n\n---\n\nbeta' })]);
  });

  it('summarises tool calls and multimodal content for display', () => {
    expect(summarizeMessage({ role: 'assistant', content: 'Looking', tool_calls: [call('x', 'grep', '{"pattern":"TODO"}')] }).summary).toBe('Looking → grep({"pattern":"TODO"})');
    expect(summarizeMessage({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:' } }] }).summary).toBe('see [image_url]');
    expect(summarizeMessage({ role: 'assistant', content: null }).summary).toBe('(empty)');
  });

  it('describes any governed history: one row per sent message, in order, and removed rows only from the transcript (property)', () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd');
    const msg: fc.Arbitrary<Message> = fc.oneof(
      fc.record({ role: fc.constant('user'), content: fc.string({ maxLength: 40 }) }),
      fc.record({ role: fc.constant('assistant'), content: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('[Previous assistant message omitted.]')) }),
      fc.record({ role: fc.constant('assistant'), content: fc.constant(''), tool_calls: fc.array(id.map((i) => call(i)), { minLength: 1, maxLength: 3 }) }),
      fc.record({ role: fc.constant('tool'), tool_call_id: id, name: fc.constant('read_file'), content: fc.string({ maxLength: 400 }) }),
    );
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 30 }), fc.option(fc.integer({ min: 2600, max: 6000 }), { nil: undefined }), (history, window) => {
        const transcript: Message[] = [{ role: 'system', content: 'sys' }, ...history, { role: 'user', content: 'now' }];
        const { result, snapshot } = run(transcript, { ...(window ? { contextWindowTokens: window, maxOutputTokens: 256 } : {}), inflightStartIndex: transcript.length });
        const rows = messageRows(snapshot.timeline);
        expect(rows.map((r) => r.index)).toEqual(result.messages.map((_, i) => i));
        rows.forEach((r, i) => expect(r.summary).toBe(summarizeMessage(result.messages[i]).summary));
        const removed = removedRows(snapshot.timeline).reduce((n, r) => n + r.messages.length, 0);
        expect(removed).toBeLessThanOrEqual(transcript.length);
        expect(snapshot.budget.used).toBe(snapshot.budget.system + snapshot.budget.tools + snapshot.budget.history + snapshot.budget.current + snapshot.budget.overhead);
        // The counts add up, and say what the timeline shows.
        const { counts } = snapshot;
        const removedTotal = Object.values(counts.removed).reduce((a, b) => a + (b ?? 0), 0);
        expect(counts.sent + removedTotal).toBe(transcript.length);
        expect(counts.sent + counts.added).toBe(result.messages.length);
        expect(counts.request).toBe(result.messages.length);
        expect(removed).toBe(removedTotal);
        // Nothing changed: the transcript is what was sent, in the same units.
        if (snapshot.actions.length === 0) expect(snapshot.budget.transcriptTokens).toBe(snapshot.budget.used);
        // Every change says why, in words.
        const whys = [...snapshot.actions.map((a) => a.why), ...removedRows(snapshot.timeline).map((r) => r.why), ...rows.flatMap((r) => r.marks.map((m) => m.why))];
        for (const why of whys) expect(why).toMatch(/^[A-Z(\w].*\S.*[.)"]$/s);
        for (const why of whys) expect(why).not.toMatch(/\bnull\b|\bundefined\b| :: /);
        expect(rows[rows.length - 1].zone).toBe('current');
        const report: GovernReport = result.report;
        expect(snapshot.budget.limit).toBe(report.budget);
      }),
      { numRuns: 150 },
    );
  });

  it("counts with the governor's estimator for the model, so the bar and the budget are in the same units", () => {
    const text = 'Ünïcödé and emoji 🦊 with code `const x = [1, 2, 3];` — '.repeat(30);
    const transcript: Message[] = deepFreeze([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: text },
      { role: 'assistant', content: '', tool_calls: [call('c1', 'read_file', JSON.stringify({ path: 'a "quoted" ünï.txt' }))] },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: text },
      { role: 'user', content: 'and now?' },
    ]);
    const result = govern(transcript, { tools: TOOLS, model: 'gpt-4o', contextWindowTokens: 20_000 });
    const o200k = createEstimator({ tokenizer: 'o200k_base' });
    const snapshot = inspectRequest({ sessionKey: 's', iteration: 0, transcript, governed: result.messages, report: result.report, tools: TOOLS, inflightStartIndex: transcript.length, sections: null, estimator: o200k });
    const rows = messageRows(snapshot.timeline);
    rows.forEach((r, i) => expect(r.tokens).toBe(o200k.messageTokens(result.messages[i])));
    expect(rows.some((r, i) => r.tokens !== estimateMessageTokens(result.messages[i]))).toBe(true);
    expect(snapshot.budget).toMatchObject({ tokenizer: 'o200k_base', tools: o200k.toolsTokens(TOOLS), limit: result.report.budget, transcriptTokens: result.report.tokensBefore });
    // The parts (and the reply priming) add up to the governor's own count of the request.
    expect(snapshot.budget.used).toBe(result.report.tokensAfter);
    expect(snapshot.budget.overhead).toBeGreaterThan(0);
    // Without one, the governor's default (cl100k_base, as the provider sees it).
    const plain = inspectRequest({ sessionKey: 's', iteration: 0, transcript, governed: result.messages, report: result.report, tools: TOOLS, inflightStartIndex: transcript.length, sections: null });
    expect(plain.budget.tokenizer).toBe('cl100k_base');
    expect(plain.budget.used).not.toBe(snapshot.budget.used);
  });
});

