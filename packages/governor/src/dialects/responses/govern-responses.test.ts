import { describe, expect, it } from 'vitest';
import { ValidationError } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { BACKFILL_CONTENT } from '../../constants.js';
import { responsesRequestViolations } from '../../test-support/responses-request-rules.js';
import { governResponses } from './govern-responses.js';
import type { ResponsesItemLike } from './responses-types.js';

const reasoning = (id: string) => ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: `gAAAA-${id}-opaque==` });
const call = (callId: string, args = '{}') => ({ type: 'function_call', id: `fc_${callId}`, call_id: callId, name: 'exec', arguments: args });
const output = (callId: string, out: string) => ({ type: 'function_call_output', call_id: callId, output: out });

describe('governResponses', () => {
  it('keeps each reasoning item, byte-exact, right before the call it preceded when the governor renames a reused call_id', () => {
    const input = deepFreeze<ResponsesItemLike[]>([
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: 'list twice' },
      reasoning('rs_1'), call('call_1', '{"cmd":"ls"}'), output('call_1', 'a'),
      reasoning('rs_2'), call('call_1', '{"cmd":"ls -a"}'), output('call_1', 'a .b'),
      { role: 'user', content: 'thanks' },
    ] as ResponsesItemLike[]);
    const out = governResponses(input);
    expect(responsesRequestViolations(out.input)).toEqual([]);
    expect(out.input.slice(0, 5)).toEqual(input.slice(0, 5));
    out.input.slice(0, 5).forEach((it, i) => expect(it).toBe(input[i]));
    expect(out.input[5]).toBe(input[5]);
    expect(out.input[6]).toEqual({ ...input[6], call_id: 'call_1__2' });
    expect(out.input[7]).toEqual({ ...input[7], call_id: 'call_1__2' });
    expect(out.input[8]).toBe(input[8]);
  });

  it('answers a call without output, drops an output without call, and leaves unknown items where they were', () => {
    const search = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } };
    const input = deepFreeze([
      { role: 'user', content: [{ type: 'input_text', text: 'search' }, { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBORw0KGgo=' }] },
      search,
      output('ghost', 'stray'),
      call('call_1'),
      { role: 'user', content: 'well?' },
    ] as ResponsesItemLike[]);
    const out = governResponses(input);
    expect(responsesRequestViolations(input)).not.toEqual([]);
    expect(responsesRequestViolations(out.input)).toEqual([]);
    expect(out.input).toEqual([input[0], search, input[3], { type: 'function_call_output', call_id: 'call_1', output: BACKFILL_CONTENT }, input[4]]);
    expect(out.input[0]).toBe(input[0]);
    expect(out.input[1]).toBe(search);
  });

  it('drops an empty assistant message with its reasoning, and leaves out blank text next to calls, reported', () => {
    const input = deepFreeze([
      { role: 'user', content: 'hi' },
      reasoning('rs_1'),
      { role: 'assistant', content: '' },
      { role: 'user', content: 'hello?' },
      reasoning('rs_2'),
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '\n\n', annotations: [] }] },
      call('call_1'),
      output('call_1', 'ok'),
      { role: 'user', content: 'go on' },
    ] as ResponsesItemLike[]);
    const out = governResponses(input);
    expect(responsesRequestViolations(out.input)).toEqual([]);
    expect(out.input).toEqual([input[0], input[3], input[4], input[6], input[7], input[8]]);
    const legal = out.report.steps.find((s) => s.step === 'legalizeForTarget')!;
    expect(legal.changed).toBe(true);
    expect(legal.removed.map((r) => r.reason)).toEqual(['empty-assistant', 'blank-text-removed']);
    expect(out.report.target).toBe('openai');
  });

  it('keeps developer and system instructions when snipping a long history, as the same items', () => {
    const turns = Array.from({ length: 60 }, (_, i) => [
      { role: 'user', content: `question ${i} `.repeat(30) },
      { type: 'message', id: `msg_${i}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `answer ${i} `.repeat(30), annotations: [] }] },
    ]).flat();
    const dev = { role: 'developer', content: 'Answer in French.' };
    const input = deepFreeze([dev, ...turns, { role: 'user', content: 'last question' }] as ResponsesItemLike[]);
    const out = governResponses(input, { contextWindowTokens: 3000, contextBlockLimit: 3000 });
    expect(out.report.fits).toBe(true);
    expect(out.input[0]).toBe(input[0]);
    expect(out.input.length).toBeLessThan(input.length);
    expect(out.input.at(-1)).toBe(input.at(-1));
    expect(responsesRequestViolations(out.input)).toEqual([]);
  });

  it('strips a call without a name and keeps the output message before it as the same item', () => {
    const input = deepFreeze([
      { role: 'user', content: 'a' },
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Running it.', annotations: [] }] },
      { type: 'function_call', call_id: 'call_x', name: '', arguments: '{}' },
      call('call_1'),
      output('call_1', 'ok'),
      { role: 'user', content: 'b' },
    ] as ResponsesItemLike[]);
    const out = governResponses(input);
    expect(responsesRequestViolations(input)).not.toEqual([]);
    expect(responsesRequestViolations(out.input)).toEqual([]);
    expect(out.input).toEqual([input[0], input[1], input[3], input[4], input[5]]);
    out.input.forEach((it) => expect(input.includes(it)).toBe(true));
  });

  it('rejects input that is not a list of items with a ValidationError', () => {
    const bad: unknown[] = ['hi', [null], [{ role: 'tool', content: 'x' }], [{ role: 'user', content: 3 }], [{ type: 'message', role: 'user' }]];
    for (const input of bad) expect(() => governResponses(input as never), JSON.stringify(input)).toThrow(ValidationError);
    expect(() => governResponses([], { tools: {} as never })).toThrow(ValidationError);
  });

  it('passes a history of unknown items only through untouched', () => {
    const ref = { type: 'item_reference', id: 'msg_x' };
    const input = deepFreeze([ref]);
    expect(governResponses(input).input).toEqual(input);
  });

  it('gives a reasoning item without summary an empty one (the API requires it), the rest byte-exact, and passes server items (compaction) through in place', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', encrypted_content: 'ENC' };
    const compaction = { type: 'compaction', id: 'cmp_1', encrypted_content: 'CMP' };
    const input = deepFreeze([
      compaction,
      { role: 'user', content: 'q' },
      reasoning,
      { type: 'function_call', call_id: 'c1', name: 'exec', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ] as unknown as ResponsesItemLike[]);
    const out = governResponses(input).input;
    expect(out).toEqual([compaction, input[1], { ...reasoning, summary: [] }, input[3], input[4]]);
    expect(out[0]).toBe(compaction);
    expect(out[3]).toBe(input[3]);
    const withSummary = deepFreeze([input[0], input[1], { ...reasoning, summary: [] }, input[3], input[4]] as unknown as ResponsesItemLike[]);
    expect(governResponses(withSummary).input[2]).toBe(withSummary[2]);
  });

  describe('server compaction items (anchors)', () => {
    const turn = (n: number) => [
      { role: 'user', content: `Question ${n}: ${'why does the build fail on the second run '.repeat(12)}` },
      reasoning(`rs_${n}`), call(`call_${n}`, '{"cmd":"make"}'), output(`call_${n}`, 'make: error '.repeat(40)),
      { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `Answer ${n}: ${'the cache is stale '.repeat(20)}`, annotations: [] }] },
    ];
    const compaction = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA-compacted-'.repeat(30) };
    const history = (before: number, after: number) => deepFreeze([
      ...Array.from({ length: before }, (_, n) => turn(n)).flat(),
      compaction,
      ...Array.from({ length: after }, (_, n) => turn(100 + n)).flat(),
      { role: 'user', content: 'What next?' },
    ] as unknown as ResponsesItemLike[]);
    const at = (items: readonly ResponsesItemLike[]) => items.findIndex((it) => it.type === 'compaction');

    it('over budget, drops what precedes the newest compaction item and keeps it byte-exact, first (the cut is reported)', () => {
      const input = history(12, 1);
      const out = governResponses(input, { contextWindowTokens: 100_000, contextBlockLimit: 1500 });
      expect(responsesRequestViolations(out.input)).toEqual([]);
      expect(out.input[0]).toBe(compaction);
      expect(out.input.slice(1)).toEqual(input.slice(at(input) + 1));
      expect(out.report.cut?.serverCompaction).toBe('cut-at-anchor');
    });

    it('a cut after the compaction item keeps it in front of the kept items, the newest user message last', () => {
      const input = history(2, 12);
      const out = governResponses(input, { contextWindowTokens: 100_000, contextBlockLimit: 1500 });
      expect(responsesRequestViolations(out.input)).toEqual([]);
      expect(out.input[0]).toBe(compaction);
      expect(out.input.filter((it) => it === compaction)).toHaveLength(1);
      expect(out.input.at(-1)).toBe(input.at(-1));
      expect(out.input.length).toBeLessThan(input.length - at(input));
      expect(out.report.cut?.serverCompaction).toBe('anchor-kept');
    });

    it('counts the compaction item: its encrypted content is part of the prompt estimate', () => {
      const input = history(0, 1);
      const without = input.filter((it) => it !== compaction);
      const tokens = (items: readonly ResponsesItemLike[]) => governResponses(items, { contextWindowTokens: 100_000, contextBlockLimit: 100_000 }).report.tokensAfter ?? 0;
      expect(tokens(input) - tokens(without)).toBeGreaterThan(50);
    });
  });
});
