import { describe, expect, it } from 'vitest';
import { createEstimator, ValidationError, type Message, type TokenCounter } from '@nanobot/schema';
import { BACKFILL_CONTENT } from './constants.js';
import { checkLegality } from './check-legality.js';
import { backfillMissingToolResults } from './steps/repair/backfill-missing-tool-results.js';
import { govern } from './govern.js';
import { MemoryArtifactStore } from './offload/memory-artifact-store.js';
import { deepFreeze } from '@nanobot-internal/test-support';
import { REFERENCE_BUILTIN_TRAITS as toolTraits } from './test-support/governance-config.js';

const call = (id: string, name = 'exec') => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
const asst = (...ids: string[]): Message => ({ role: 'assistant', content: '', tool_calls: ids.map((id) => call(id)) });
const result = (id: string, content: string, name = 'exec'): Message => ({ role: 'tool', tool_call_id: id, name, content });

describe('govern', () => {
  it('returns the very same list for a clean history', () => {
    const history = deepFreeze<Message[]>([
      { role: 'system', content: 's' },
      { role: 'user', content: 'hi' },
      asst('a'),
      result('a', 'ok'),
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'thanks' },
    ]);
    const { messages, report } = govern(history);
    expect(messages).toBe(history);
    expect(report.steps.every((s) => !s.changed)).toBe(true);
    expect(report.budget).toBe(0);
    expect(report.tokensBefore).toBeUndefined();
    expect(report.fits).toBeUndefined();
    // OpenAI accepts an assistant turn last; Anthropic would take it as a prefill.
    const answered = history.slice(0, 5);
    expect(govern(answered, { target: 'openai' }).messages).toBe(answered);
    const forAnthropic = govern(answered, { target: 'anthropic' });
    expect(forAnthropic.messages).toEqual(history.slice(0, 4));
    expect(forAnthropic.report.steps.find((s) => s.step === 'enforceRoleAlternation')!.removed).toEqual([{ index: 4, role: 'assistant', preview: 'done', reason: 'trailing-assistant' }]);
  });

  it('a history cut while a tool batch runs: the missing results are appended as the full backfill would, the same objects each time', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'hi' },
      asst('a', 'b', 'c'),
      result('a', 'ok'),
    ]);
    const { messages, report } = govern(history, { target: 'openai' });
    expect(messages).toEqual(backfillMissingToolResults(history));
    expect(messages.slice(0, 3).every((m, i) => m === history[i])).toBe(true);
    expect(report.steps.find((s) => s.step === 'backfillMissingToolResults')!.added.map((m) => m.toolCallId)).toEqual(['b', 'c']);
    const again = govern(history, { target: 'openai' }).messages;
    again.forEach((m, i) => expect(m).toBe(messages[i]));
    // Once the batch is complete, nothing is added.
    const done = deepFreeze([...history, result('b', 'ok'), result('c', 'ok')]);
    expect(govern(done, { target: 'openai' }).messages).toBe(done);
  });

  it('reports plain JSON data, per step, with token estimates when there is a budget', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'hi' },
      asst('a'),
      result('ghost', 'stray'),
    ]);
    const { report } = govern(history, { contextWindowTokens: 8000, maxOutputTokens: 500 });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    const drop = report.steps.find((s) => s.step === 'dropOrphanToolResults')!;
    expect(drop.removed).toEqual([{ index: 2, role: 'tool', toolCallId: 'ghost', name: 'exec', preview: 'stray' }]);
    const backfill = report.steps.find((s) => s.step === 'backfillMissingToolResults')!;
    expect(backfill.added).toEqual([{ index: 2, role: 'tool', toolCallId: 'a', name: 'exec', preview: BACKFILL_CONTENT }]);
    expect(typeof backfill.tokensBefore).toBe('number');
    expect(backfill.tokensAfter!).toBeGreaterThan(backfill.tokensBefore!);
    expect(report.steps.map((s) => s.step)).toEqual([
      'stripPlaceholderAssistantMessages', 'stripMalformedToolCalls', 'repairToolCallIds', 'dropOrphanToolResults',
      'regroupToolResults', 'backfillMissingToolResults', 'legalizeForTarget', 'applyToolResultBudget', 'compactInflightOverflow', 'shortenNewestResults',
      'snipHistory', 'dropOrphanToolResults', 'backfillMissingToolResults', 'enforceRoleAlternation',
    ]);
  });

  it('reports every kind of change as plain JSON a UI can draw (strict round trip)', () => {
    const history: Message[] = [{ role: 'system', content: 'sys' }];
    for (let i = 0; i < 6; i++) history.push({ role: 'user', content: `old ${i} `.repeat(60) }, { role: 'assistant', content: `reply ${i} `.repeat(60) });
    history.push({ role: 'user', content: 'go' }, result('ghost', 'stray'), asst('r0'), result('r0', 'big '.repeat(3000)));
    for (let i = 1; i < 12; i++) history.push(asst(i === 5 ? 'r0' : `r${i}`), result(i === 5 ? 'r0' : `r${i}`, `grep line ${i}\n`.repeat(60), 'grep'));
    history.push(asst('lost'));
    const { report } = govern(deepFreeze(history), {
      contextWindowTokens: 3000, maxOutputTokens: 500, maxToolResultChars: 4000, inflightStartIndex: 13,
      artifactStore: new MemoryArtifactStore(), sessionKey: 'ui', compactedToolCallIds: new Set<string>(), toolTraits,
    });
    const changed = report.steps.filter((st) => st.changed).map((st) => st.step);
    expect(changed).toEqual(expect.arrayContaining(['repairToolCallIds', 'dropOrphanToolResults', 'backfillMissingToolResults', 'applyToolResultBudget', 'compactInflightOverflow', 'snipHistory']));
    const actions = report.steps.flatMap((st) => st.toolResults.map((t) => t.action));
    expect(actions).toEqual(expect.arrayContaining(['renamed', 'offloaded', 'compacted']));
    // Only JSON values: no undefined fields, Sets, Maps, class instances or non-finite numbers.
    expect(JSON.parse(JSON.stringify(report))).toStrictEqual(report);
    for (const st of report.steps) {
      if (st.tokensBefore !== undefined) expect(Number.isFinite(st.tokensBefore) && Number.isFinite(st.tokensAfter)).toBe(true);
    }
    expect(report.tokensAfter!).toBeLessThanOrEqual(report.budget);
  });

  it('keeps both call/result pairs when a tool-call id is reused', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'one' },
      asst('call_0'),
      result('call_0', 'first'),
      { role: 'user', content: 'two' },
      asst('call_0'),
      result('call_0', 'second'),
    ]);
    const { messages, report } = govern(history);
    expect(checkLegality(messages)).toEqual([]);
    expect(messages[4].tool_calls![0].id).toBe('call_0__2');
    expect(messages[5]).toMatchObject({ tool_call_id: 'call_0__2', content: 'second' });
    expect(messages[2]).toBe(history[2]);
    const repair = report.steps.find((s) => s.step === 'repairToolCallIds')!;
    expect(repair.toolResults).toEqual([{ toolCallId: 'call_0__2', name: 'exec', action: 'renamed', from: 'call_0' }]);
    // The reference drops the second result and sends the second call unanswered.
    const ref = govern(history, { compat: 'reference' }).messages;
    expect(ref.map((m) => m.content)).not.toContain('second');
    expect(checkLegality(ref).map((v) => v.rule)).toEqual(['duplicate-tool-call-id', 'unanswered-tool-call']);
  });

  it('re-points the results of a turn that reuses several ids in order, and drops real duplicates', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      asst('a', 'b'),
      result('a', 'A1'),
      result('b', 'B1'),
      { role: 'user', content: 'again' },
      asst('a', 'a'),
      result('a', 'A2'),
      result('a', 'A3'),
      result('a', 'A4 duplicate'),
    ]);
    const { messages } = govern(history);
    expect(checkLegality(messages)).toEqual([]);
    expect(messages.slice(5).map((m) => [m.tool_calls?.map((c) => c.id) ?? m.tool_call_id, m.content])).toEqual([
      [['a__2', 'a__3'], ''],
      ['a__2', 'A2'],
      ['a__3', 'A3'],
    ]);
  });

  it('writes integer ids as strings, in calls and results', () => {
    const history = deepFreeze([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: 7, type: 'function', function: { name: 'exec', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 7, name: 'exec', content: 'r' },
      { role: 'assistant', content: '', tool_calls: [call('8')] },
      { role: 'tool', tool_call_id: 8, name: 'exec', content: 'r' },
    ] as unknown as Message[]);
    const { messages } = govern(history);
    expect(checkLegality(messages)).toEqual([]);
    expect([messages[1].tool_calls![0].id, messages[2].tool_call_id, messages[4].tool_call_id]).toEqual(['7', '7', '8']);
  });

  it('gives a call without an id an id and answers it', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'exec', arguments: '{}' } } as never] },
    ]);
    const { messages } = govern(history);
    expect(checkLegality(messages)).toEqual([]);
    expect(messages[1].tool_calls![0].id).toBe('call_missing_1');
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_missing_1', name: 'exec', content: BACKFILL_CONTENT });
  });

  it('moves a result that was stored after a later message back to its call', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      asst('a', 'b'),
      result('a', 'A'),
      { role: 'user', content: 'interrupting' },
      result('b', 'B'),
    ]);
    const { messages, report } = govern(history);
    expect(messages.map((m) => m.content)).toEqual(['go', '', 'A', 'B', 'interrupting']);
    expect(messages[3]).toBe(history[4]);
    expect(report.steps.find((s) => s.step === 'regroupToolResults')!.toolResults).toEqual([{ toolCallId: 'b', name: 'exec', action: 'moved' }]);
  });

  it('snips inside a long tool loop so the request fits', () => {
    const loop: Message[] = [];
    for (let i = 0; i < 40; i++) loop.push(asst(`c${i}`), result(`c${i}`, `output ${i} `.repeat(30), 'write_file'));
    const history = deepFreeze<Message[]>([{ role: 'system', content: 'sys' }, { role: 'user', content: 'do the big task' }, ...loop]);
    const options = { contextWindowTokens: 4000, maxOutputTokens: 1000 };
    const { messages, report } = govern(history, options);
    expect(checkLegality(messages, { budget: 4000 - 1000 - 1024 })).toEqual([]);
    expect(messages[0]).toBe(history[0]);
    expect(messages[1]).toBe(history[1]);
    expect(messages[2].role).toBe('assistant');
    expect(messages[messages.length - 1]).toBe(history[history.length - 1]);
    expect(report.steps.find((s) => s.step === 'snipHistory')!.notes).toHaveLength(1);
    // The reference keeps the whole loop and overflows.
    const ref = govern(history, { ...options, compat: 'reference' }).messages;
    expect(checkLegality(ref, { budget: 1976 }).map((v) => v.rule)).toEqual(['over-budget']);
  });

  it('records compactions in the run set and re-applies them on the next call', () => {
    const history: Message[] = [{ role: 'user', content: 'read everything' }];
    for (let i = 0; i < 6; i++) history.push(asst(`r${i}`), result(`r${i}`, `line ${i} of the file\n`.repeat(60), 'read_file'));
    deepFreeze(history);
    const ids = new Set<string>();
    const options = { contextWindowTokens: 3000, maxOutputTokens: 0, compactedToolCallIds: ids, toolTraits };
    const first = govern(history, options);
    expect(ids.size).toBeGreaterThan(0);
    expect([...ids]).toEqual(first.report.newlyCompactedToolCallIds);
    const again = govern(history, options);
    expect(again.messages).toEqual(first.messages);
    expect(again.report.newlyCompactedToolCallIds).toEqual([]);
    expect(again.report.steps.find((s) => s.step === 'compactInflightOverflow')!.toolResults.every((t) => t.action === 'recompacted')).toBe(true);
  });

  it('compacts in a bounded number of whole-prompt estimates (no per-result re-estimate)', () => {
    const history: Message[] = [{ role: 'user', content: 'scan' }];
    for (let i = 0; i < 300; i++) history.push(asst(`g${i}`), result(`g${i}`, `match ${i}: some grep output line\n`.repeat(25), 'grep'));
    let calls = 0;
    const counter: TokenCounter = {
      countPromptTokens(messages, tools) {
        calls++;
        // Agrees with govern's default count, so the per-message guesses are right.
        return [createEstimator().promptTokens(messages, tools)[0], 'test'];
      },
    };
    const ids = new Set<string>();
    const { messages } = govern(deepFreeze(history), { contextWindowTokens: 30000, maxOutputTokens: 0, tokenCounter: counter, compactedToolCallIds: ids, toolTraits });
    expect(ids.size).toBeGreaterThan(100);
    expect(calls).toBeLessThan(20);
    expect(checkLegality(messages, { budget: 30000 - 1024 })).toEqual([]);
  });

  it('ignores a throwing token counter', () => {
    const counter: TokenCounter = { countPromptTokens() { throw new Error('boom'); } };
    const { report } = govern([{ role: 'user', content: 'hi' }], { contextWindowTokens: 5000, maxOutputTokens: 100, tokenCounter: counter });
    expect(report.tokensBefore).toBeGreaterThan(0);
  });

  it('sees messages pushed onto the same array between calls', () => {
    const history: Message[] = [{ role: 'user', content: 'go' }, asst('a'), result('a', 'ok')];
    expect(govern(history).messages).toBe(history);
    history.push(result('ghost', 'stray'), { role: 'user', content: 'next' });
    const { messages } = govern(history);
    expect(messages.map((m) => m.content)).toEqual(['go', '', 'ok', 'next']);
    history.push(asst('b'));
    expect(govern(history).messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'b', content: BACKFILL_CONTENT });
  });

  it('rejects input that is not a list of message objects', () => {
    expect(() => govern('nope' as never)).toThrow(ValidationError);
    expect(() => govern([{ role: 'user', content: 'a' }, null] as never)).toThrow(/messages\[1\]/);
  });

  it('rejects options of the wrong type before touching anything', () => {
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'go' }, asst('a'), result('a', 'x'.repeat(30_000))]);
    const ids = new Set<string>(['kept']);
    const store = new MemoryArtifactStore();
    const bad: [unknown, RegExp][] = [
      [null, /options must be an object/],
      [{ contextWindowTokens: '8000' }, /options\.contextWindowTokens must be a finite number, got "8000"/],
      [{ contextWindowTokens: Number.NaN }, /contextWindowTokens must be a finite number, got NaN/],
      [{ maxOutputTokens: Infinity }, /maxOutputTokens must be a finite number, got Infinity/],
      [{ maxToolResultChars: 'big' }, /maxToolResultChars/],
      [{ inflightStartIndex: '3' }, /inflightStartIndex/],
      [{ keepRecentCompactableResults: {} }, /keepRecentCompactableResults/],
      [{ compactedToolCallIds: ['a'] }, /compactedToolCallIds must be a Set/],
      [{ tools: 'exec' }, /tools must be an array/],
      [{ artifactStore: {} }, /artifactStore must have persist\(\) and read\(\)/],
      [{ tokenCounter: () => 3 }, /tokenCounter must have countPromptTokens\(\)/],
      [{ sessionKey: 42 }, /sessionKey must be a string/],
      [{ compat: 'strict' }, /compat must be 'fixed' or 'reference', got "strict"/],
    ];
    for (const [options, message] of bad) {
      // Otherwise valid options around the bad one: a store and the run's id set that must stay untouched.
      const full = options === null ? null : { artifactStore: store, sessionKey: 's', compactedToolCallIds: ids, contextWindowTokens: 3000, ...(options as object) };
      expect(() => govern(history, full as never)).toThrow(ValidationError);
      expect(() => govern(history, full as never)).toThrow(message);
    }
    expect([...ids]).toEqual(['kept']);
    expect(store.read('memory:/.nanobot/tool-results/s/a.txt')).toBeUndefined();
    // Negative numbers keep their reference meaning (conformance feeds them): no error.
    expect(govern(history, { contextBlockLimit: -10, contextWindowTokens: 3000, maxToolResultChars: -5 }).report.budget).toBe(0);
  });

  it('offloads oversized results and reports where they went', () => {
    const store = new MemoryArtifactStore();
    const big = 'x'.repeat(5000);
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'go' }, asst('a'), result('a', big)]);
    const { messages, report } = govern(history, { artifactStore: store, sessionKey: 'cli:direct', maxToolResultChars: 2000 });
    const step = report.steps.find((s) => s.step === 'applyToolResultBudget')!;
    expect(step.toolResults).toEqual([{ toolCallId: 'a', name: 'exec', action: 'offloaded', location: 'memory:/.nanobot/tool-results/cli_direct/a.txt', originalChars: 5000 }]);
    // Default mode: says what happened and where the rest is, never as an error.
    expect(String(messages[2].content)).toMatch(/^\[output shortened to fit the context: 1,200 of 5,000 characters shown; the full output is at memory:\/\.nanobot\/tool-results\/cli_direct\/a\.txt/);
    expect(store.read('memory:/.nanobot/tool-results/cli_direct/a.txt')).toBe(big);
    // The same stored message gives the same model-copy object next time (warm caches).
    expect(govern(history, { artifactStore: store, sessionKey: 'cli:direct', maxToolResultChars: 2000 }).messages[2]).toBe(messages[2]);
    expect(String(govern(history, { artifactStore: new MemoryArtifactStore(), sessionKey: 'cli:direct', maxToolResultChars: 2000, compat: 'reference' }).messages[2].content)).toContain('Full output saved to: memory:/.nanobot/tool-results/cli_direct/a.txt');
  });

  it('keeps a result inline (truncated) when the store fails, and says so', () => {
    const store = { persist() { throw new Error('disk full'); }, read: () => undefined };
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'go' }, asst('a'), result('a', 'y'.repeat(3000))]);
    const { messages, report } = govern(history, { artifactStore: store, maxToolResultChars: 100 });
    expect(String(messages[2].content)).toBe(`${'y'.repeat(100)}\n\n[output shortened to fit the context: 100 of 3,000 characters shown; the rest was not kept — call the tool again with a narrower query or range for it]`);
    expect(String(govern(history, { artifactStore: store, maxToolResultChars: 100, compat: 'reference' }).messages[2].content)).toBe(`${'y'.repeat(100)}\n... (truncated)`);
    expect(report.steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults.map((t) => t.action)).toEqual(['offload-failed', 'truncated']);
  });

  it('runs the opt-in keep-recent microcompaction only when asked', () => {
    const history: Message[] = [{ role: 'user', content: 'go' }];
    for (let i = 0; i < 5; i++) history.push(asst(`e${i}`), result(`e${i}`, 'z'.repeat(600)));
    deepFreeze(history);
    expect(govern(history).messages).toBe(history);
    const { messages } = govern(history, { keepRecentCompactableResults: 2, toolTraits });
    const compacted = messages.filter((m) => String(m.content).startsWith('[exec ran successfully; its output (600 characters) was left out of this request'));
    expect(compacted.map((m) => m.tool_call_id)).toEqual(['e0', 'e1', 'e2']);
    // Without a declaration nothing is compactable in the default mode, whatever the name.
    expect(govern(history, { keepRecentCompactableResults: 2 }).messages).toBe(history);
    const reference = govern(history, { keepRecentCompactableResults: 2, compat: 'reference' }).messages;
    expect(reference.filter((m) => String(m.content).startsWith('Error: The previous exec result was compacted')).map((m) => m.tool_call_id)).toEqual(['e0', 'e1', 'e2']);
  });
});
