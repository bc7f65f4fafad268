import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Message, ToolDefinition } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { cacheBoundaries } from './cache-boundaries.js';
import { govern } from '../govern.js';
import { isInstructionRole } from '../steps/target/govern-target.js';

const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.md"}' } });
const sys = (content: string): Message => ({ role: 'system', content });
const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const asks = (...ids: string[]): Message => ({ role: 'assistant', content: '', tool_calls: ids.map(call) });
const result = (id: string, content = 'file text'): Message => ({ role: 'tool', tool_call_id: id, name: 'read_file', content });

describe('cacheBoundaries', () => {
  it('an empty history has only the tools boundary (when there are tools)', () => {
    expect(cacheBoundaries([], { hasTools: true, cut: null })).toEqual({ tools: true });
    expect(cacheBoundaries([], { hasTools: false, cut: null })).toEqual({});
  });

  it('a history of instructions only ends them at its last message, with no previous request', () => {
    expect(cacheBoundaries(deepFreeze([sys('a'), { role: 'developer', content: 'b' }]), { hasTools: false, cut: null })).toEqual({ instructions: 1, last: 1 });
  });

  it('a first request: instructions, last, no previous request', () => {
    expect(cacheBoundaries(deepFreeze([sys('s'), user('hi')]), { hasTools: true, cut: null })).toEqual({ tools: true, instructions: 0, last: 1 });
  });

  it('in a tool loop the previous request ended right before the latest assistant turn', () => {
    // Request 1 was [s, u]; request 2 is [s, u, a(c1), t1]; request 3 adds a(c2,c3), t2, t3.
    const r2 = deepFreeze([sys('s'), user('go'), asks('c1'), result('c1')]);
    expect(cacheBoundaries(r2, { hasTools: true, cut: null })).toEqual({ tools: true, instructions: 0, previous: 1, last: 3 });
    const r3 = deepFreeze([...r2, asks('c2', 'c3'), result('c2'), result('c3')]);
    expect(cacheBoundaries(r3, { hasTools: true, cut: null })).toEqual({ tools: true, instructions: 0, previous: 3, last: 6 });
  });

  it('a new user turn after an answer: the previous request ended with the last user turn', () => {
    const r = deepFreeze([sys('s'), user('q1'), answer('a1'), user('q2')]);
    expect(cacheBoundaries(r, { hasTools: false, cut: null })).toEqual({ instructions: 0, previous: 1, last: 3 });
  });

  it('without instructions there is no instructions boundary; an assistant first has no previous request', () => {
    expect(cacheBoundaries(deepFreeze([answer('hello'), user('hi')]), { hasTools: false, cut: null })).toEqual({ last: 1 });
  });

  it('names the cut only when one is given and in range', () => {
    const r = deepFreeze([sys('s'), user('q5'), answer('a5'), user('q6')]);
    expect(cacheBoundaries(r, { hasTools: false, cut: 1 })).toEqual({ instructions: 0, cut: 1, previous: 1, last: 3 });
    expect(cacheBoundaries(r, { hasTools: false, cut: 9 })).not.toHaveProperty('cut');
  });
});

/** A long session whose early turns do not fit a small window. */
function longSession(turns: number): Message[] {
  const out: Message[] = [sys('You are a test agent.')];
  for (let t = 0; t < turns; t++) {
    out.push(user(`question ${t}: ${'lorem ipsum dolor sit amet '.repeat(20)}`));
    if (t % 3 === 0) out.push(asks(`c${t}`), result(`c${t}`, 'x '.repeat(200)));
    out.push(answer(`answer ${t}: ${'consectetur adipiscing elit '.repeat(20)}`));
  }
  out.push(user('and now?'));
  return out;
}

describe('govern report.cacheBoundaries', () => {
  it('a history that fits: no cut, boundaries index the returned copy', () => {
    const history = deepFreeze([sys('s'), user('go'), asks('c1'), result('c1')]);
    const { messages, report } = govern(history, { tools, contextWindowTokens: 100_000 });
    expect(report.cacheBoundaries).toEqual({ tools: true, instructions: 0, previous: 1, last: messages.length - 1 });
  });

  it('a snipped history: the cut is the first kept message after the instructions', () => {
    const history = deepFreeze(longSession(40));
    const { messages, report } = govern(history, { tools, contextWindowTokens: 6_000, maxOutputTokens: 1_000 });
    expect(messages.length).toBeLessThan(history.length);
    const b = report.cacheBoundaries;
    expect(b.instructions).toBe(0);
    expect(b.cut).toBe(1);
    expect(isInstructionRole(messages[b.cut!].role)).toBe(false);
    expect(messages[b.cut!]).not.toBe(history[1]);
    expect(b.last).toBe(messages.length - 1);
    expect(messages[b.previous! + 1].role).toBe('assistant');
    expect(messages.slice(b.previous! + 2).some((m) => m.role === 'assistant')).toBe(false);
  });

  it('no tools, no tools boundary; only-instructions and empty histories', () => {
    expect(govern(deepFreeze([sys('s')])).report.cacheBoundaries).toEqual({ instructions: 0, last: 0 });
    expect(govern([]).report.cacheBoundaries).toEqual({});
  });

  it('a growing tool loop: each request\'s previous boundary is the last boundary of the request before', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }), (batches) => {
        const history: Message[] = [sys('s'), user('start')];
        let lastBefore = govern(history, { tools }).report.cacheBoundaries.last!;
        let n = 0;
        for (const size of batches) {
          const ids = Array.from({ length: size }, () => `c${n++}`);
          history.push(asks(...ids), ...ids.map((id) => result(id)));
          const { report } = govern(deepFreeze(history.slice()), { tools, contextWindowTokens: 100_000 });
          expect(report.cacheBoundaries.previous).toBe(lastBefore);
          lastBefore = report.cacheBoundaries.last!;
        }
      }),
    );
  });
});
