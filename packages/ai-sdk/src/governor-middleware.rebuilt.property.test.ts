// A prompt the SDK rebuilt (every message and part a new object, the strings, inputs and outputs
// shared) is recognised as the previous call's and resumes it (issue 31). Recognising must never
// trust a stale result: with one message changed anywhere — at the start, in the middle, at the
// end — the middleware's output equals that of a middleware that recognises nothing (each of its
// prompts a deep copy, so no input or output object is shared and every tool turn is converted
// afresh), call after call, with and without a window (the cut plan carried either way).
import { createGovernor, type GovernOptions } from '@nanobot/governor';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { governorMiddleware, type GovernedCallOptions } from './governor-middleware.js';
import { mockModel } from './test-support/mock-model.js';
import { damagedHistory, validHistory } from './test-support/arbitrary-model-messages.js';

type Prompt = GovernedCallOptions['prompt'];

/** What each SDK step hands the middleware: new message and part objects, the values shared. */
function rebuild(history: readonly ModelMessage[]): Prompt {
  return history.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m })) as unknown as Prompt;
}

/** A deep copy of plain objects and arrays (URLs and byte arrays kept): nothing shared but strings. */
function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepCopy(v)])) as T;
}

type Change = 'text' | 'call-id' | 'input' | 'output' | 'provider-options' | 'other-part' | 'role';

/** A longer text: enough to change what a window keeps and what is shortened. */
const LONG = ' and then some more words'.repeat(120);

type Parts = Record<string, unknown>[];
const partsOf = (m: ModelMessage): Parts | null => (Array.isArray(m.content) ? (m.content as unknown as Parts) : null);

/** Which part of a message `change` edits (-1: the message itself, undefined: none to edit). */
function target(m: ModelMessage, change: Change): number | undefined {
  const parts = partsOf(m);
  const find = (pick: (p: Record<string, unknown>) => boolean): number | undefined => {
    const i = parts?.findIndex(pick) ?? -1;
    return i >= 0 ? i : undefined;
  };
  switch (change) {
    case 'text': return typeof m.content === 'string' ? -1 : find((p) => p.type === 'text');
    case 'call-id': return find((p) => p.type === 'tool-call' || p.type === 'tool-result');
    case 'input': return find((p) => p.type === 'tool-call');
    case 'output': return find((p) => p.type === 'tool-result');
    case 'other-part': return find((p) => p.type !== 'text' && p.type !== 'tool-call' && p.type !== 'tool-result');
    case 'role': return (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' ? -1 : undefined;
    default: return -1;
  }
}

/** `m` with `change` made to its part `i` (-1: to the message). */
function edit(m: ModelMessage, change: Change, i: number): ModelMessage {
  if (i < 0) {
    if (change === 'text') return { ...m, content: `${String(m.content)}${LONG}` } as ModelMessage;
    if (change === 'role') return { ...m, role: m.role === 'user' ? 'assistant' : 'user' } as ModelMessage;
    return { ...m, providerOptions: { test: { changed: true } } } as ModelMessage;
  }
  const patch = (p: Record<string, unknown>): Record<string, unknown> => {
    switch (change) {
      case 'text': return { ...p, text: `${String(p.text)}${LONG}` };
      case 'call-id': return { ...p, toolCallId: `${String(p.toolCallId)}_x` };
      case 'input': return { ...p, input: { replaced: LONG } };
      case 'output': return { ...p, output: { type: 'text', value: `another result${LONG}` } };
      default: return { ...p, extra: 'a field of its own' };
    }
  };
  return { ...m, content: partsOf(m)!.map((p, j) => (j === i ? patch(p) : p)) } as ModelMessage;
}

/**
 * `history` with one message changed by `change`: among the messages it applies to, the first
 * (`start`), the last (`end`) or the `n`th (`middle`).
 */
function changed(history: readonly ModelMessage[], place: 'start' | 'middle' | 'end', n: number, change: Change): ModelMessage[] {
  const eligible = history.map((m, i) => [i, target(m, change)] as const).filter(([, t]) => t !== undefined) as (readonly [number, number])[];
  if (eligible.length === 0) return history.map((m, i) => (i === history.length - 1 ? edit(m, 'provider-options', -1) : m));
  const [at, part] = eligible[place === 'start' ? 0 : place === 'end' ? eligible.length - 1 : n % eligible.length];
  return history.map((m, i) => (i === at ? edit(m, change, part) : m));
}

async function transform(middleware: ReturnType<typeof governorMiddleware>, prompt: Prompt): Promise<Prompt> {
  return (await middleware.transformParams!({ type: 'generate', params: { prompt }, model: mockModel() })).prompt;
}

const where = fc.constantFrom('start' as const, 'middle' as const, 'end' as const, 'nowhere' as const);
const change = fc.constantFrom<Change>('text', 'call-id', 'input', 'output', 'provider-options', 'other-part', 'role');
const settings = fc.constantFrom<GovernOptions>({}, { contextWindowTokens: 1_200, maxOutputTokens: 100 }, { contextWindowTokens: 600, maxOutputTokens: 50, maxToolResultChars: 40 });

describe('governorMiddleware on prompts the SDK rebuilt', () => {
  it('gives, call after call, what a middleware that recognises nothing gives, with one message changed anywhere', async () => {
    let recognised = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(validHistory, damagedHistory), where, change, fc.nat(), settings, async (history, place, how, n, options) => {
        const next = place === 'nowhere' ? history : changed(history, place, n, how);
        // What the warm middleware hands its governor: the same list again when it recognised the prompt.
        const governor = createGovernor(options);
        const handed: unknown[] = [];
        const govern = governor.govern.bind(governor);
        governor.govern = (h, o) => {
          if (h.length > 0) handed.push(h);
          return govern(h, o);
        };
        const reports: { warm: unknown[]; cold: unknown[] } = { warm: [], cold: [] };
        const warm = governorMiddleware({ ...options, governor, onReport: (r) => reports.warm.push(r) });
        const cold = governorMiddleware({ ...options, onReport: (r) => reports.cold.push(r) });
        const earlier = new Set<unknown>();
        // The same calls to both: the history, the same again rebuilt, then with the change.
        for (const h of [history, history, next]) {
          const prompt = rebuild(h);
          const got = await transform(warm, prompt);
          const want = await transform(cold, deepCopy(prompt));
          expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(want)));
          // The same decisions on the same sizes: the reports are equal too.
          expect(reports.warm.at(-1)).toEqual(reports.cold.at(-1));
          // No message of an earlier prompt reaches the model: what is kept is this call's own.
          for (const m of got) expect(earlier.has(m)).toBe(false);
          for (const m of prompt) earlier.add(m);
        }
        if (handed.length === 3 && handed[1] === handed[0]) recognised++;
      }),
      { numRuns: 150 },
    );
    // Not vacuous: the unchanged rebuilt prompt (the second call) was recognised as the first.
    expect(recognised).toBeGreaterThan(100);
  }, 120_000);

  it('gives what a middleware that recognises nothing gives on a prompt growing step by step, with one message changed anywhere at the end', async () => {
    let grown = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(validHistory, damagedHistory), fc.array(fc.nat(), { minLength: 1, maxLength: 7 }), where, change, fc.nat(), settings, async (history, cuts, place, how, n, options) => {
        // Each step's prompt: the history up to a later point (the SDK appends a step's messages), rebuilt.
        const lengths = [...new Set(cuts.map((c) => 1 + (c % history.length)))].sort((a, b) => a - b);
        const steps = [...lengths.map((k) => history.slice(0, k)), history, place === 'nowhere' ? history : changed(history, place, n, how)];
        const warm = governorMiddleware({ ...options });
        const cold = governorMiddleware({ ...options });
        const earlier = new Set<unknown>();
        for (const h of steps) {
          const prompt = rebuild(h);
          const copy = deepCopy(prompt);
          const got = await transform(warm, prompt);
          const want = await transform(cold, copy);
          expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(want)));
          // The messages the governor left alone are this call's own objects, where the cold
          // middleware hands back its own input's; none is an earlier prompt's.
          const own = new Set<unknown>(prompt);
          const coldOwn = new Set<unknown>(copy);
          expect(got.map((m) => own.has(m))).toEqual(want.map((m) => coldOwn.has(m)));
          for (const m of got) expect(earlier.has(m)).toBe(false);
          for (const m of prompt) earlier.add(m);
        }
        if (lengths.length > 1) grown++;
      }),
      { numRuns: 120 },
    );
    expect(grown).toBeGreaterThan(30);
  }, 120_000);
});
