// Issue 29, item 1: shrink before snip, oldest before newest. The step the model waits on (its
// last tool calls and their results) survives every governed copy whose budget holds the
// instructions, the user's message and the calls; its results are shortened (head and tail,
// the full text in the store) rather than cut away, and when not even a preview fits the text
// says so plainly, never as an error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEstimator, toolTraitsTable, type Message } from '@nanobot/schema';
import { deepFreeze, runs } from '@nanobot-internal/test-support';
import { govern } from '../../govern.js';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { arbitraryCleanHistory } from '../../test-support/arbitrary-history.js';
import { loadTranscript, waitingOnResultPoints } from '../../test-support/node/transcripts.js';
import { minimalCopy, NEWEST_PREVIEW_MIN_CHARS, noRoomNote, pendingStep } from './shorten-newest-results.js';

const estimator = createEstimator({ tokenizer: 'cl100k_base' });
const tokens = (list: readonly Message[]): number => estimator.promptTokens(list, [])[0];
const listing = Array.from({ length: 900 }, (_, i) => `drwxr-xr-x 2 root root 4096 Jan  1 00:00 dir_${i}/file_${i}.txt`).join('\n');
const call = (id: string, name = 'execute_bash'): Message => ({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name, arguments: '{"command":"ls -R /"}' } }] });
const result = (id: string, content: string, name = 'execute_bash'): Message => ({ role: 'tool', tool_call_id: id, name, content });
/** The governor's own lines in a sent result (not lines of the tool's output). */
const ownLines = (sent: string, original: string): string[] => sent.split('\n').filter((line) => line.trim() !== '' && !original.includes(line));

describe('shortenNewestResults (default mode)', () => {
  it('the current turn is shortened, never snipped: an 8k window and a 50 KB listing keep the call and a head-and-tail preview', () => {
    const history = deepFreeze<Message[]>([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'List the repository and tell me where the tests are.' },
      call('c1'),
      result('c1', listing),
    ]);
    const store = new MemoryArtifactStore({ root: '/ws' });
    // A result limit above the listing's size: only this step shortens it.
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, maxToolResultChars: 100_000, artifactStore: store, sessionKey: 's' });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[2]).toBe(history[2]);
    const sent = String(messages[3].content);
    expect(sent).toContain('dir_0/file_0.txt');
    expect(sent).toContain('dir_899/file_899.txt');
    expect(sent).toMatch(/^\[output shortened to fit the context: [\d,]+ of [\d,]+ characters shown; the full output is at /);
    expect(sent).not.toMatch(/error/i);
    const location = /the full output is at (\S+) —/.exec(sent)![1];
    expect(store.read(location)).toBe(listing);
    expect(report.fits).toBe(true);
    // The room is used: the preview is not a token gesture.
    expect(report.tokensAfter!).toBeGreaterThan(report.budget * 0.8);
  });

  it('older history goes first: earlier turns and steps are cut, the pending step is kept whole when it fits', () => {
    const old: Message[] = [];
    for (let i = 0; i < 12; i++) old.push({ role: 'user', content: `old question ${i} ${'context '.repeat(300)}` }, { role: 'assistant', content: `old answer ${i} ${'detail '.repeat(300)}` });
    const small = listing.slice(0, 6_000);
    const history = deepFreeze<Message[]>([{ role: 'system', content: 'sys' }, ...old, { role: 'user', content: 'now list it' }, call('a'), result('a', listing.slice(0, 9_000)), call('b'), result('b', small)]);
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024 });
    expect(messages.at(-1)).toBe(history.at(-1));
    expect(messages.at(-2)).toBe(history.at(-2));
    expect(messages.some((m) => typeof m.content === 'string' && m.content.startsWith('old question'))).toBe(false);
    expect(report.fits).toBe(true);
  });

  it('older in-flight results are compacted first; the newest is shortened, never replaced by a note', () => {
    const history = deepFreeze<Message[]>([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'check the logs' },
      call('g1', 'grep'),
      result('g1', listing.slice(0, 20_000), 'grep'),
      call('g2', 'grep'),
      result('g2', listing.slice(20_000, 45_000), 'grep'),
    ]);
    const toolTraits = toolTraitsTable([['grep', { readOnly: true, compactable: true }]]);
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, inflightStartIndex: 2, toolTraits, artifactStore: new MemoryArtifactStore({ root: '/ws' }), sessionKey: 's' });
    const newest = String(messages.at(-1)!.content);
    expect(newest).toContain('dir_');
    expect(newest).not.toMatch(/ran successfully|error/i);
    expect(report.newlyCompactedToolCallIds).not.toContain('g2');
    expect(messages.filter((m) => Array.isArray(m.tool_calls)).map((m) => m.tool_calls![0].id)).toContain('g2');
  });

  it('when not even a short preview fits beside the instructions, the message and the calls, the text says so (no "error") and fits is false', () => {
    const system = `Rules. ${'Follow every rule exactly. '.repeat(1_250)}`;
    const history = deepFreeze<Message[]>([{ role: 'system', content: system }, { role: 'user', content: 'go' }, call('c1'), result('c1', listing)]);
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, artifactStore: new MemoryArtifactStore({ root: '/ws' }), sessionKey: 's' });
    const sent = messages.find((m) => m.role === 'tool');
    expect(sent).toBeDefined();
    expect(String(sent!.content)).toMatch(/is not shown: this request has no room for it beside the instructions, the user's message and the calls; the full output is at /);
    expect(String(sent!.content)).not.toMatch(/error/i);
    expect(messages.some((m) => Array.isArray(m.tool_calls) && m.tool_calls[0].id === 'c1')).toBe(true);
    expect(report.fits).toBe(false);
    expect(noRoomNote({ name: 'x', total: 12_345, location: null })).toBe("[x ran; its output (12,345 characters) is not shown: this request has no room for it beside the instructions, the user's message and the calls; it was not kept — call x again with a narrower query or range for what you need]");
  });

  it('notes alone fit but no short preview does: the copy is reported as not fitting, and onOverflow throw throws', () => {
    // The instructions leave room for the note, not for a 200-character preview.
    // (1,158–1,169 repetitions do that at this window with the default estimator.)
    const system = `Rules. ${'Follow every rule exactly. '.repeat(1_163)}`;
    const history = deepFreeze<Message[]>([{ role: 'system', content: system }, { role: 'user', content: 'go' }, call('c1'), result('c1', listing)]);
    const { messages, report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, onOverflow: 'send' });
    expect(String(messages.at(-1)!.content)).toContain('is not shown: this request has no room for it');
    // Under the budget by count, yet what the model waits on is withheld: not fitting, said why.
    expect(report.tokensAfter!).toBeLessThanOrEqual(report.budget);
    expect(report.fits).toBe(false);
    expect(report.overflow).toMatchObject({ reason: 'newest-results' });
    expect(report.overflow!.message).toMatch(/no room for even a short preview of the newest tool results/);
    expect(() => govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, onOverflow: 'throw' })).toThrow(/no room for even a short preview/);
  });

  it("cuts: 'tightest' without a counter never cuts into the pending step (the older per-message walk)", () => {
    const loop: Message[] = [];
    for (let i = 0; i < 6; i++) loop.push(call(`l${i}`), result(`l${i}`, listing.slice(i * 3_000, i * 3_000 + 3_000)));
    for (let n = 0; n < 40; n++) {
      const history = deepFreeze<Message[]>([
        { role: 'system', content: `sys ${'x '.repeat(n * 7)}` },
        { role: 'user', content: 'list everything' },
        ...loop,
        call('last'),
        result('last', listing),
      ]);
      const { messages } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, cuts: 'tightest' });
      const at = messages.findIndex((m) => Array.isArray(m.tool_calls) && m.tool_calls[0].id === 'last');
      expect(at, `system padding ${n}`).toBeGreaterThan(0);
      expect(messages.at(-1)!.tool_call_id).toBe('last');
      expect(String(messages.at(-1)!.content)).toContain('dir_0/file_0.txt');
    }
  });

  it("compat: 'reference' keeps the reference's behaviour: the step does not run, compaction may take the newest result", () => {
    const history = deepFreeze<Message[]>([{ role: 'system', content: 'sys' }, { role: 'user', content: 'go' }, call('c1', 'exec'), result('c1', listing, 'exec')]);
    const { report } = govern(history, { contextWindowTokens: 8_000, maxOutputTokens: 1_024, compat: 'reference', inflightStartIndex: 2 });
    expect(report.steps.map((s) => s.step)).not.toContain('shortenNewestResults');
    expect(report.newlyCompactedToolCallIds).toEqual(['c1']);
  });

  it('pendingStep finds the step the model waits on, and only that', () => {
    const h: Message[] = [{ role: 'user', content: 'a' }, call('c1'), result('c1', 'x')];
    expect(pendingStep(h)).toEqual({ call: 1, results: [2], anchor: 0 });
    expect(pendingStep([...h, { role: 'assistant', content: 'done' }])).toBeNull();
    expect(pendingStep([...h, { role: 'user', content: 'next' }])).toBeNull();
    expect(minimalCopy([{ role: 'system', content: 's' }, { role: 'user', content: 'old' }, ...h], pendingStep([{ role: 'system', content: 's' }, { role: 'user', content: 'old' }, ...h])!).map((m) => m.content)).toEqual(['s', 'a', '', 'x']);
  });
});

describe('the last assistant turn with tool calls survives every governed copy whose budget holds the instructions, the last user message and the calls (property)', () => {
  const bigResult = fc.tuple(fc.constantFrom('line of log output', 'λ unicode ü', '{"k": [1, 2]}'), fc.integer({ min: 50, max: 2_500 })).map(([w, n]) => Array.from({ length: n }, (_, i) => `${i}: ${w}`).join('\n'));
  it('holds', () => {
    fc.assert(fc.property(
      arbitraryCleanHistory,
      fc.array(bigResult, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 4_000 }),
      fc.constantFrom<'stable' | 'tightest'>('stable', 'tightest'),
      (earlier, outputs, extra, cuts) => {
        const ids = outputs.map((_, i) => `pending_${i}`);
        const calls: Message = { role: 'assistant', content: '', tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'exec', arguments: '{"command":"make test"}' } })) };
        const history = deepFreeze<Message[]>([...earlier, { role: 'user', content: 'run the tests and tell me what failed' }, calls, ...ids.map((id, i) => result(id, outputs[i], 'exec'))]);
        // The budget holds the instructions, the last user message and the calls with a short preview of each result.
        const step = pendingStep(history)!;
        const floor = tokens(minimalCopy(history, step).map((m, i, all) => (i >= all.length - outputs.length ? { ...m, content: `${outputs[i - (all.length - outputs.length)].slice(0, NEWEST_PREVIEW_MIN_CHARS)}\n\n[…]\n\n${noRoomNote({ name: 'exec', total: 99_999, location: '/ws/.nanobot/tool-results/s/pending_0.txt' })}` } : m)));
        const budget = floor + 64 * outputs.length + extra;
        const { messages } = govern(history, { contextBlockLimit: budget, contextWindowTokens: budget + 2_048, estimator, cuts, artifactStore: new MemoryArtifactStore({ root: '/ws' }), sessionKey: 's' });
        const at = messages.findIndex((m) => Array.isArray(m.tool_calls) && m.tool_calls.some((c) => c.id === ids[0]));
        expect(at).toBeGreaterThan(0);
        expect(messages[at].tool_calls!.map((c) => c.id)).toEqual(ids);
        const sent = messages.slice(at + 1);
        expect(sent.map((m) => m.tool_call_id)).toEqual(ids);
        for (const [i, m] of sent.entries()) {
          const text = String(m.content);
          expect(text.startsWith('Error')).toBe(false);
          // Whole, or a preview of its head.
          if (text !== outputs[i]) expect(text).toContain(outputs[i].slice(0, 20));
        }
      },
    ), { numRuns: runs(60, 400) });
  });
});

describe('survey: the newest result at every request point of the recorded sessions (8k / 16k / 32k / 128k)', () => {
  // Every request point where the model waits on a tool result of at least 400 characters.
  const points = waitingOnResultPoints();
  // Every 6th point in `pnpm test` (each window still sees every session), all of them exhaustively.
  const stride = runs(6, 1);
  it.each([8_000, 16_000, 32_000, 128_000])('at a %i-token window: whole or a preview whenever a preview fits; else said plainly and not fitting', (window) => {
    expect(points.length).toBeGreaterThan(100);
    const tally = { whole: 0, preview: 0, noRoom: 0 };
    for (let k = 0; k < points.length; k += stride) {
      const { file, end } = points[k];
      const history = loadTranscript(file).slice(0, end);
      const last = history[end - 1];
      const original = String(last.content);
      const { messages, report } = govern(history, { contextWindowTokens: window, maxOutputTokens: 1_024, artifactStore: new MemoryArtifactStore({ root: '/ws' }), sessionKey: 's' });
      // The newest result ends the copy (a repeated call id is renamed, so it is found by place).
      const sent = messages.at(-1)!;
      expect(sent.role, `${file} @${end}`).toBe('tool');
      const text = String(sent.content);
      expect(ownLines(text, original).some((line) => /\berror\b/i.test(line)), `${file} @${end}: ${text.slice(0, 200)}`).toBe(false);
      if (text === original) tally.whole++;
      else if (text.includes('is not shown: this request has no room for it')) {
        tally.noRoom++;
        // Not even the shortest preview fits beside the instructions, the user message and the calls.
        const step = pendingStep(history);
        expect(step).not.toBeNull();
        expect(report.fits, `${file} @${end}`).toBe(false);
        expect(report.overflow?.message, `${file} @${end}`).toMatch(/no room for even a short preview/);
      } else {
        expect(text, `${file} @${end}`).toMatch(/shortened to fit the context/);
        tally.preview++;
      }
    }
    expect(tally.whole + tally.preview).toBeGreaterThan(0);
  }, 600_000);
});
