import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@nanobot-internal/test-support';
import { createEstimator, referenceEstimator } from './create-estimator.js';
import { ValidationError } from '../errors/errors.js';
import type { Message } from '../messages/message.js';
import { CLAUDE_TOKEN_FACTOR, CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS } from './provider-token-counts.js';
import { estimatePromptTokens, estimatePromptTokensChain } from './tokens.js';
import { tokenizerForModel } from '../tokenizer/tokenizer-for-model.js';
import { countWithEncoding } from '../tokenizer/encoding-counter.js';

type FullEncoder = Tiktoken;
const full: Record<'cl100k_base' | 'o200k_base', FullEncoder> = { cl100k_base: new Tiktoken(cl100k), o200k_base: new Tiktoken(o200k) };

// OpenAI's documented counting (cookbook), written out independently of the estimator: each
// field's text through js-tiktoken's own whole-text encode (special-token text as plain text).
function exactMessage(m: Message, enc: FullEncoder): number {
  const count = (text: unknown): number => (typeof text === 'string' ? enc.encode(text, [], []).length : 0);
  let n = 3 + count(m.role);
  if (typeof m.content === 'string') n += count(m.content);
  else if (Array.isArray(m.content)) for (const part of m.content) if (part.type === 'text') n += count(part.text);
  if (typeof m.name === 'string' && m.name.length > 0) n += 1 + count(m.name);
  n += count((m as { tool_call_id?: unknown }).tool_call_id);
  n += count((m as { reasoning_content?: unknown }).reasoning_content);
  for (const call of (m as { tool_calls?: { id: string; function: { name: string; arguments: string } }[] }).tool_calls ?? []) {
    n += 3 + count(call.id) + count(call.function.name) + count(call.function.arguments);
  }
  return n;
}

const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\n\n', 'héllo wörld 日本語 😀', '<|endoftext|> and <|fim_prefix|>', "it's   done\r\n", '"quoted" \\ back'),
);
const argsArb = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.oneof(textArb, fc.integer(), fc.boolean()), { maxKeys: 4 })
  .map((o) => JSON.stringify(o))
  .chain((json) => fc.constantFrom(json, JSON.stringify(JSON.parse(json), null, 2)));
const idArb = fc.stringMatching(/^call_[A-Za-z0-9]{1,24}$/);
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: textArb }),
  fc.record({ role: fc.constant('system' as const), content: textArb }),
  fc.record({ role: fc.constant('user' as const), content: fc.array(textArb.map((text) => ({ type: 'text' as const, text })), { minLength: 1, maxLength: 3 }) }),
  fc.record(
    {
      role: fc.constant('assistant' as const),
      content: fc.option(textArb, { nil: null }),
      reasoning_content: textArb,
      tool_calls: fc.array(
        fc.record({ id: idArb, type: fc.constant('function' as const), function: fc.record({ name: fc.stringMatching(/^[a-z_]{1,16}$/), arguments: argsArb }) }),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({ role: fc.constant('tool' as const), tool_call_id: idArb, name: fc.stringMatching(/^[a-z_]{0,12}$/), content: textArb }),
) as fc.Arbitrary<Message>;

describe('createEstimator (provider view)', () => {
  for (const tokenizer of ['cl100k_base', 'o200k_base'] as const) {
    it(`counts every message as a full ${tokenizer} encode of its provider view`, () => {
      const estimator = createEstimator({ tokenizer });
      fc.assert(
        fc.property(fc.array(messageArb, { maxLength: 8 }), (messages) => {
          deepFreeze(messages);
          const exact = messages.map((m) => exactMessage(m, full[tokenizer]));
          expect(messages.map((m) => estimator.messageTokens(m))).toEqual(exact);
          const total = messages.length === 0 ? 0 : 3 + exact.reduce((a, b) => a + b, 0);
          expect(estimator.promptTokens(messages)[0]).toBe(total);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('re-estimates a grown or edited history exactly as a fresh one (incremental walk)', () => {
    const estimator = createEstimator({ tokenizer: 'o200k_base' });
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 12 }), fc.nat(), fc.array(messageArb, { maxLength: 4 }), (messages, cut, extra) => {
        const k = cut % (messages.length + 1);
        for (let i = 1; i <= messages.length; i++) estimator.promptTokens(messages.slice(0, i));
        const edited = [...messages.slice(0, k), ...extra];
        const fresh = edited.map((m) => structuredClone(m));
        expect(estimator.promptTokens(edited)[0]).toBe(estimator.promptTokens(fresh)[0]);
        expect(estimator.promptTokens(messages)[0]).toBe(estimator.promptTokens(messages.map((m) => structuredClone(m)))[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('counts tool-call arguments as written, not JSON-escaped again as the reference does', () => {
    const args = JSON.stringify({ path: 'src/a.ts', content: 'const x = "a\\nb";\n'.repeat(40) });
    const call: Message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_file', arguments: args } }] };
    const provider = createEstimator({ tokenizer: 'cl100k_base' }).messageTokens(call);
    expect(provider).toBe(3 + full.cl100k_base.encode('assistant').length + 3 + full.cl100k_base.encode('call_1').length + full.cl100k_base.encode('write_file').length + full.cl100k_base.encode(args).length);
    expect(referenceEstimator.messageTokens(call)).toBeGreaterThan(provider * 1.15);
  });

  it("estimates Claude as cl100k × the factor, and adds Anthropic's tool-use prompt", () => {
    const m: Message = { role: 'user', content: 'Refactor the parser so that it streams its input. '.repeat(20) };
    const cl = createEstimator({ tokenizer: 'cl100k_base' });
    const claude = createEstimator({ tokenizer: 'claude' });
    const text = full.cl100k_base.encode('user').length + full.cl100k_base.encode(m.content as string).length;
    expect(claude.messageTokens(m)).toBe(3 + Math.ceil(text * CLAUDE_TOKEN_FACTOR));
    expect(cl.messageTokens(m)).toBe(3 + text);
    const tools = [{ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];
    expect(claude.toolsTokens(tools)).toBe(CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS + Math.ceil(full.cl100k_base.encode(JSON.stringify(tools)).length * CLAUDE_TOKEN_FACTOR));
  });

  it('keeps one count per tokenizer on the same message object, each its own', () => {
    const m: Message = { role: 'user', content: 'Ünïcode and ASCII, counted three ways: 12345 67890. '.repeat(8) };
    const names = ['cl100k_base', 'o200k_base', 'claude', 'cl100k_base', 'claude', 'o200k_base'] as const;
    // Each tokenizer's count of a fresh copy (nothing cached on it) is what the shared object must give, in any order.
    const fresh = Object.fromEntries(names.map((t) => [t, createEstimator({ tokenizer: t }).messageTokens({ ...m })]));
    expect(new Set(Object.values(fresh)).size).toBe(3);
    for (const t of names) expect(createEstimator({ tokenizer: t }).messageTokens(m)).toBe(fresh[t]);
  });

  it("counts tools as OpenAI's cookbook does", () => {
    const tools = deepFreeze([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Get the weather.',
          parameters: { type: 'object', properties: { city: { type: 'string', description: 'The city.' }, unit: { type: 'string', enum: ['c', 'f'] } } },
        },
      },
    ]);
    const enc = full.o200k_base;
    const c = (t: string) => enc.encode(t).length;
    const expected = 7 + c('get_weather:Get the weather') + 3 + (3 + c('city:string:The city')) + (3 - 3 + 3 + c('c') + 3 + c('f') + c('unit:string:')) + 12;
    expect(createEstimator({ tokenizer: 'o200k_base' }).toolsTokens(tools)).toBe(expected);
    expect(createEstimator({ tokenizer: 'o200k_base' }).promptTokens([], tools)[0]).toBe(3 + expected);
  });

  it('keeps the reference estimate and its signatures unchanged', () => {
    const messages: Message[] = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    expect(createEstimator({ mode: 'reference', tokenizer: 'o200k_base' })).toBe(referenceEstimator);
    expect(referenceEstimator.promptTokens(messages)[0]).toBe(estimatePromptTokens(messages));
    expect(estimatePromptTokensChain(null, messages, null, createEstimator({ tokenizer: 'o200k_base' }))[0]).toBe(3 + 3 + 1 + 1 + 3 + 1 + 1);
    expect(estimatePromptTokensChain(null, [], null, createEstimator())[0]).toBe(0);
  });

  it('rejects bad input with a ValidationError', () => {
    const estimator = createEstimator();
    expect(() => estimator.promptTokens('x' as unknown as Message[])).toThrow(ValidationError);
    expect(() => estimator.messageTokens(null as unknown as Message)).toThrow(ValidationError);
    expect(() => createEstimator({ tokenizer: 'gpt2' as never })).toThrow(ValidationError);
    expect(() => createEstimator({ mode: 'exact' as never })).toThrow(ValidationError);
  });
});

describe('countWithEncoding', () => {
  it('equals a whole-text encode on long pieces (the fast merge) and on special-token text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'q', 'é', 'ß'), minLength: 65, maxLength: 600 }).map((w) => ` ${w}`), fc.constantFrom('cl100k_base' as const, 'o200k_base' as const), (word, name) => {
        expect(countWithEncoding(name, word)).toBe(full[name].encode(word, [], []).length);
      }),
      { numRuns: 60 },
    );
    for (const name of ['cl100k_base', 'o200k_base'] as const) {
      const text = 'stop at <|endoftext|> or <|endofprompt|> please';
      expect(countWithEncoding(name, text)).toBe(full[name].encode(text, [], []).length);
    }
  });
});

describe('tokenizerForModel', () => {
  it('follows the model family', () => {
    expect(['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5', 'o3-mini', 'o1', 'openai/gpt-5-mini'].map((m) => tokenizerForModel(m))).toEqual(Array(7).fill('o200k_base'));
    expect(['gpt-4', 'gpt-3.5-turbo', 'gpt-4-turbo'].map((m) => tokenizerForModel(m))).toEqual(Array(3).fill('cl100k_base'));
    expect(tokenizerForModel('claude-sonnet-4-5')).toBe('claude');
    expect(tokenizerForModel('anthropic/claude-3-haiku-20240307')).toBe('claude');
    expect(tokenizerForModel('my-local-llama')).toBe('cl100k_base');
    expect(tokenizerForModel(undefined)).toBe('cl100k_base');
    expect(tokenizerForModel('my-local-llama', { overrides: [{ id: 'x', pattern: /llama/, contextWindow: 8192, maxOutput: 1024, tokenizer: 'o200k_base' }] })).toBe('o200k_base');
  });
});

describe('lazy ranks', () => {
  it('loads no ranks at import, and o200k only on its first count (the Node entry)', () => {
    const entry = pathToFileURL(join(import.meta.dirname, '..', 'node.ts')).href;
    const script = `
      const s = await import(${JSON.stringify(entry)});
      const seen = [s.encodingLoaded('o200k_base'), s.encodingLoaded('cl100k_base'), s.tokenizerLoaded()];
      s.createEstimator({ tokenizer: 'cl100k_base' }).messageTokens({ role: 'user', content: 'hi' });
      seen.push(s.encodingLoaded('o200k_base'), s.encodingLoaded('cl100k_base'));
      s.createEstimator({ tokenizer: 'o200k_base' }).messageTokens({ role: 'user', content: 'hi' });
      seen.push(s.encodingLoaded('o200k_base'), typeof s.encodingLoadMs('o200k_base'));
      console.log(JSON.stringify(seen));`;
    const res = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(import.meta.dirname, '..', '..') });
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout.trim())).toEqual([false, false, false, false, true, true, 'number']);
  }, 60_000);
});
