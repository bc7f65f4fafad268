import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/message.js';
import type { TokenCounter } from './token-counter.js';
import type { ToolDefinition } from '../json-schema/tool-definition.js';
import { estimateMessageTokens, estimatePromptTokens, estimatePromptTokensChain } from './tokens.js';
import { deepFreeze, loadCases } from '@nanobot-internal/test-support';
import { setTokenizerUnavailableForTesting } from '../tokenizer/tokenizer.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ValidationError } from '../errors/errors.js';

/** Cases where we deliberately differ from the reference, with the reason. */
const DEVIATIONS: Record<string, string> = {
  returns_non_tuple__no_tools: 'our TokenCounter interface also allows a bare number; the reference ignores non-tuples',
  returns_non_tuple__small: 'our TokenCounter interface also allows a bare number; the reference ignores non-tuples',
  returns_non_tuple__empty_messages: 'our TokenCounter interface also allows a bare number; the reference ignores non-tuples',
};

function counterFor(config: Record<string, unknown>): TokenCounter | null {
  if (!('provider_counter' in config)) return null;
  const spec = config['provider_counter'] as Record<string, unknown>;
  if ('returns' in spec) return { countPromptTokens: () => spec['returns'] as [number, string] };
  if ('returns_scalar' in spec) return { countPromptTokens: () => spec['returns_scalar'] as number };
  if ('raises' in spec) {
    return {
      countPromptTokens: () => {
        throw new Error(String(spec['raises']));
      },
    };
  }
  if ('attribute' in spec) return { countPromptTokens: spec['attribute'] } as unknown as TokenCounter;
  return {} as TokenCounter;
}

describe('tokens conformance', () => {
  const files = ['tokens/estimate_message_tokens.json', 'tokens/estimate_prompt_tokens.json', 'tokens/estimate_prompt_tokens_chain_providers.json'];
  for (const file of files) {
    const cases = loadCases(file);
    it(`${file}: runs every case (${cases.length})`, () => {
      let passed = 0;
      let deviated = 0;
      const failures: string[] = [];
      for (const c of cases) {
        const input = deepFreeze(structuredClone(c.input));
        let got: unknown;
        if (c.fn === 'helpers.estimate_message_tokens') {
          got = estimateMessageTokens(input['message'] as Message);
        } else if (c.fn === 'helpers.estimate_prompt_tokens') {
          got = estimatePromptTokens(input['messages'] as Message[], input['tools'] as ToolDefinition[] | null);
        } else {
          got = estimatePromptTokensChain(counterFor(c.config), input['messages'] as Message[], input['tools'] as ToolDefinition[] | null);
        }
        if (c.name in DEVIATIONS) {
          deviated++;
          // Ours: the bare number is the provider's count.
          expect(got, c.name).toEqual([77, 'provider_counter']);
          expect(got).not.toEqual(c.expected);
          continue;
        }
        if (JSON.stringify(got) === JSON.stringify(c.expected)) passed++;
        else failures.push(`${c.name}: got ${JSON.stringify(got)} expected ${JSON.stringify(c.expected)}`);
      }
      expect(failures).toEqual([]);
      expect(passed + deviated).toBe(cases.length);
    });
  }
});

describe('estimators', () => {
  it('falls back to UTF-8 bytes when tiktoken is unavailable', () => {
    setTokenizerUnavailableForTesting(true);
    try {
      expect(estimateMessageTokens({ role: 'user', content: 'héllo' })).toBe(6 + 4);
      const messages: Message[] = [
        { role: 'user', content: 'ab' },
        { role: 'assistant', content: 'é' },
      ];
      expect(estimatePromptTokensChain(null, messages)).toEqual([2 + 1 + 2 + 8, 'heuristic']);
    } finally {
      setTokenizerUnavailableForTesting(false);
    }
  });

  it('a history first estimated without tiktoken is counted exactly once it is back', () => {
    const history: Message[] = [
      { role: 'user', content: 'count these words, then the next message' },
      { role: 'assistant', content: 'sure: here is a longer answer with several words in it' },
    ];
    const fresh = (): Message[] => history.map((m) => ({ ...m }));
    setTokenizerUnavailableForTesting(true);
    let heuristic: [number, string];
    try {
      heuristic = estimatePromptTokensChain(null, history);
    } finally {
      setTokenizerUnavailableForTesting(false);
    }
    expect(heuristic[1]).toBe('heuristic');
    expect(estimatePromptTokensChain(null, history)).toEqual(estimatePromptTokensChain(null, fresh()));
    expect(estimatePromptTokensChain(null, history)[1]).toBe('tiktoken');
  });

  it('re-estimates when a message field is replaced', () => {
    const msg: Message = { role: 'user', content: 'hello' };
    const before = estimatePromptTokens([msg]);
    msg.content = 'hello there, a much longer text now';
    expect(estimatePromptTokens([msg])).toBeGreaterThan(before);
    expect(estimateMessageTokens(msg)).toBeGreaterThan(5);
  });

  it('both estimates share one per-message entry that any replaced field invalidates', () => {
    const msg: Message = { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'ok' };
    const history: Message[] = [{ role: 'user', content: 'run it' }, msg];
    estimateMessageTokens(msg);
    estimatePromptTokens(history);
    const replacements: Array<[string, unknown]> = [
      ['content', 'a longer tool result with several words'],
      ['name', 'exec_longer_name'],
      ['tool_call_id', 'call_replaced_id_123'],
      ['reasoning_content', 'some reasoning text'],
    ];
    for (const [key, value] of replacements) {
      (msg as Record<string, unknown>)[key] = value;
      const fresh = { ...msg };
      expect(estimateMessageTokens(msg), key).toBe(estimateMessageTokens(fresh));
      expect(estimatePromptTokens(history), key).toBe(estimatePromptTokens([{ ...history[0]! }, fresh]));
    }
  });

  it('rejects non-object messages and cyclic values with a typed error', () => {
    expect(() => estimatePromptTokens([42 as unknown as Message])).toThrow(ValidationError);
    expect(() => estimateMessageTokens(null as unknown as Message)).toThrow(ValidationError);
    const cyclic: Record<string, unknown> = { id: 'c' };
    cyclic['self'] = cyclic;
    expect(() => estimateMessageTokens({ role: 'assistant', tool_calls: [cyclic as never] })).toThrow(ValidationError);
  });
});

describe('cache memory', () => {
  // The caches must not keep a message's text (or a joined copy of it) alive: a tool call's
  // JSON is a copy the message does not hold, so a cache that kept it would retain ~20 KB per
  // message here. Heap sizes, not times: the margin is two orders of magnitude.
  it('retains far less than the text per message (tool-call JSON is not kept)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapUsed = (): number => {
      let used = Infinity;
      for (let i = 0; i < 10; i++) {
        gc();
        const now = process.memoryUsage().heapUsed;
        if (now >= used - 4096) return now;
        used = now;
      }
      return used;
    };
    const n = 500;
    const history = buildHistory(n);
    estimatePromptTokens(history.slice(0, 2)); // ranks loaded before the baseline
    const before = heapUsed();
    estimatePromptTokens(history);
    for (const m of history) estimateMessageTokens(m);
    const perMessage = (heapUsed() - before) / n;
    expect(perMessage).toBeLessThan(4096);
    expect(history).toHaveLength(n); // keeps the history alive through the measurement
  });
});

function buildHistory(n: number): Message[] {
  const history: Message[] = [];
  for (let i = 0; i < n; i++) {
    // Unique words so the shared per-piece cache stays small next to the texts.
    const body = Array.from({ length: 2500 }, (_, j) => `w${i}x${j}`).join(' ');
    history.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: `f${i}`, content: body }) } }] });
  }
  return history;
}
