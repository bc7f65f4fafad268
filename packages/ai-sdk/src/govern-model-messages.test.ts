import { deepFreeze } from '@nanobot-internal/test-support';
import { BACKFILL_CONTENT, MemoryArtifactStore } from '@nanobot/governor';
import { NanobotError, toolTraitsTable } from '@nanobot/schema';
import { generateText, MissingToolResultsError, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { mockModel, noDownload } from './test-support/mock-model.js';

const call = (id: string, toolName = 'exec', input: unknown = { command: 'ls' }) => ({ type: 'tool-call' as const, toolCallId: id, toolName, input });
const result = (id: string, value: string, toolName = 'exec') => ({ type: 'tool-result' as const, toolCallId: id, toolName, output: { type: 'text' as const, value } });

describe('governModelMessages', () => {
  it('lets the real generateText accept a history it refuses raw (MissingToolResultsError)', async () => {
    const history: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'list the files' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, call('call_1')] },
      // the tool result was lost (the process died while the tool ran)
      { role: 'user', content: 'hello?' },
    ]);
    const raw = mockModel();
    const refused = await generateText({ model: raw, messages: history }).then(() => null, (e: unknown) => e);
    expect(MissingToolResultsError.isInstance(refused)).toBe(true);
    expect(raw.doGenerateCalls).toHaveLength(0);

    const { messages, report } = governModelMessages(history);
    expect(messages[0]).toBe(history[0]);
    expect(messages[1]).toBe(history[1]);
    expect(messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'exec', output: { type: 'error-text', value: BACKFILL_CONTENT } }],
    });
    expect(messages[3]).toBe(history[2]);
    const backfill = report.steps.find((s) => s.step === 'backfillMissingToolResults' && s.changed);
    expect(backfill?.added).toEqual([expect.objectContaining({ role: 'tool', toolCallId: 'call_1' })]);

    const model = mockModel();
    const { text } = await generateText({ model, messages });
    expect(text).toBe('done');
    const prompt = model.doGenerateCalls[0].prompt;
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('drops a result whose call is gone and reports it; the rest is the input objects', () => {
    const history: ModelMessage[] = deepFreeze([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'tool', content: [result('lost', 'orphaned output')] },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'bye' },
    ]);
    const { messages, report } = governModelMessages(history);
    const kept = [history[0], history[1], history[3], history[4]];
    expect(messages).toHaveLength(kept.length);
    messages.forEach((m, i) => expect(m).toBe(kept[i]));
    const drop = report.steps.find((s) => s.step === 'dropOrphanToolResults' && s.changed);
    expect(drop?.removed).toEqual([expect.objectContaining({ role: 'tool', toolCallId: 'lost' })]);
  });

  it('offloads an oversized result and keeps everything else of the part and its turn', () => {
    const big = 'line\n'.repeat(5000);
    const options = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const history: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'read the log' },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'need the log', providerOptions: { anthropic: { signature: 'c2ln' } } }, call('c1', 'exec'), call('c2', 'grep')] },
      {
        role: 'tool',
        providerOptions: options,
        content: [
          { ...result('c1', big), providerOptions: options },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'grep', output: { type: 'json', value: { matches: 3 } } },
        ],
      },
    ]);
    const store = new MemoryArtifactStore();
    const { messages, report } = governModelMessages(history, { maxToolResultChars: 2000, artifactStore: store, sessionKey: 's' });
    expect(messages[0]).toBe(history[0]);
    expect(messages[1]).toBe(history[1]);
    const tool = messages[2];
    expect(tool.role).toBe('tool');
    expect(tool.providerOptions).toBe(options);
    const [first, second] = tool.content as Extract<ModelMessage, { role: 'tool' }>['content'];
    expect(first).toMatchObject({ type: 'tool-result', toolCallId: 'c1', toolName: 'exec', providerOptions: options });
    // Says what happened and where the rest is (the default mode's wording; never "Error").
    expect(first.type === 'tool-result' && first.output.type === 'text' && first.output.value).toMatch(/^\[output shortened to fit the context: 1,200 of 25,000 characters shown; the full output is at memory:/);
    expect(second).toBe((history[2].content as unknown[])[1]);
    const offload = report.steps.find((s) => s.step === 'applyToolResultBudget');
    expect(offload?.toolResults).toEqual([expect.objectContaining({ toolCallId: 'c1', action: 'offloaded' })]);
  });

  it('snips old turns to fit a window and still hands generateText a legal history', async () => {
    const history: ModelMessage[] = [{ role: 'system', content: 'You are terse.' }];
    for (let i = 0; i < 40; i++) {
      history.push({ role: 'user', content: `question ${i}: ${'words '.repeat(200)}` });
      history.push({ role: 'assistant', content: [call(`t${i}`)] });
      history.push({ role: 'tool', content: [result(`t${i}`, 'out '.repeat(300))] });
      history.push({ role: 'assistant', content: `answer ${i}` });
    }
    history.push({ role: 'user', content: 'and now?' });
    deepFreeze(history);
    // exec declares itself compactable (as the built-in does): only declared tools are compacted.
    const { messages, report } = governModelMessages(history, { contextWindowTokens: 8000, maxOutputTokens: 1000, toolTraits: toolTraitsTable([['exec', { compactable: true }]]) });
    expect(messages.length).toBeLessThan(history.length);
    expect(messages[0]).toBe(history[0]);
    expect(messages[messages.length - 1]).toBe(history[history.length - 1]);
    expect(report.tokensAfter).toBeLessThanOrEqual(report.budget);
    // What is not an input object is a result the governor compacted, and says so.
    const compacted = new Set(report.newlyCompactedToolCallIds);
    expect(compacted.size).toBeGreaterThan(0);
    for (const m of messages) {
      if (history.includes(m)) continue;
      expect(m.role).toBe('tool');
      for (const p of m.content as { toolCallId: string }[]) expect(compacted.has(p.toolCallId)).toBe(true);
    }
    const model = mockModel();
    await generateText({ model, messages, allowSystemInMessages: true });
    expect(model.doGenerateCalls[0].prompt[1].role).toBe('user');
  });

  it('gives a reused call id a fresh one and keeps the part (input, provider options) otherwise', () => {
    const po = { openai: { itemId: 'fc_1' } };
    const history: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('dup')] },
      { role: 'tool', content: [result('dup', 'one')] },
      { role: 'assistant', content: [{ ...call('dup', 'grep', { pattern: 'x' }), providerOptions: po }] },
      { role: 'tool', content: [result('dup', 'two', 'grep')] },
    ]);
    const { messages } = governModelMessages(history);
    expect(messages.slice(0, 3)).toEqual(history.slice(0, 3));
    const renamed = (messages[3].content as { toolCallId: string; input: unknown; providerOptions?: unknown }[])[0];
    expect(renamed.toolCallId).toBe('dup__2');
    expect(renamed.input).toBe((history[3].content as { input: unknown }[])[0].input);
    expect(renamed.providerOptions).toBe(po);
    expect((messages[4].content as { toolCallId: string }[])[0].toolCallId).toBe('dup__2');
  });

  it('does not answer a call approved in the last message: generateText runs it itself', async () => {
    const history: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'delete tmp' },
      { role: 'assistant', content: [call('c1', 'rm', { path: 'tmp' }), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
    ]);
    const { messages } = governModelMessages(history);
    expect(messages).toBe(history);
    const model = mockModel();
    const ran: unknown[] = [];
    const { tool, jsonSchema } = await import('ai');
    await generateText({
      model,
      messages,
      tools: { rm: tool({ inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }), needsApproval: true, execute: async (input) => { ran.push(input); return 'removed'; } }) },
      experimental_download: noDownload,
    });
    expect(ran).toEqual([{ path: 'tmp' }]);
    const prompt = model.doGenerateCalls[0].prompt;
    expect(JSON.stringify(prompt)).toContain('removed');
    expect(JSON.stringify(prompt)).not.toContain('unavailable');
  });

  it('keeps files, images and their provider options byte for byte', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const history: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: bytes, mediaType: 'image/png' }, { type: 'file', data: 'JVBER', mediaType: 'application/pdf', providerOptions: { anthropic: { citations: { enabled: true } } } }] },
      { role: 'assistant', content: [call('c')] },
    ];
    const { messages } = governModelMessages(history);
    expect(messages[0]).toBe(history[0]);
    expect(messages[1]).toBe(history[1]);
    expect(messages).toHaveLength(3); // the backfilled result
  });

  it('refuses what is not an AI SDK history with a typed error, naming the place', () => {
    const bad = (messages: unknown) => () => governModelMessages(messages as ModelMessage[]);
    expect(bad('nope')).toThrow(NanobotError);
    expect(bad([{ role: 'developer', content: 'x' }])).toThrow(/messages\[0\] has role "developer"/);
    expect(bad([{ role: 'user', content: 'ok' }, { role: 'system', content: [{ type: 'text', text: 'x' }] }])).toThrow(/messages\[1\] \(system\) must have string content/);
    expect(bad([{ role: 'tool', content: 'x' }])).toThrow(/array content/);
    expect(bad([{ role: 'user', content: [null] }])).toThrow(/content\[0\]/);
    expect(() => governModelMessages([], { contextWindowTokens: 'big' as unknown as number })).toThrow(NanobotError);
  });
});
