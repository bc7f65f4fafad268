// What a Governor keeps alive of the lists it governs: a runner hands it a new array per request
// (its history copied and grown), and a Governor kept across a session must not hold on to them.
// Heap reachability after full collections, not sizes or times.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { createGovernor } from '../governor.js';
import { GOVERN_TARGETS } from '../steps/target/govern-target.js';

function history(n: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are terse.' }];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: 'user', content: `question ${i}` });
    out.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'exec', arguments: '{}' } }] } as Message);
    out.push({ role: 'tool', tool_call_id: `call_${i}`, name: 'exec', content: `result ${i}` });
    out.push({ role: 'assistant', content: `answer ${i}` });
  }
  return out.slice(0, n);
}

describe('a Governor', () => {
  it.each(GOVERN_TARGETS)('keeps none of the lists it was given alive but the last (%s)', async (target) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const full = history(400);
    const governor = createGovernor({ target, contextWindowTokens: 100_000 });
    const given: WeakRef<Message[]>[] = [];
    for (let n = 200; n <= 400; n += 4) {
      const list = full.slice(0, n);
      given.push(new WeakRef(list));
      governor.govern(list);
    }
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    gc();
    // The leak this guards against kept every list (each chained to the one before it): 50 here.
    // One older list may outlive a collection (CI saw it once for bedrock at 18:50 on 2026-12-02,
    // not reproduced): a memo a step skipped on the last call still names the list it saw before.
    expect(given.slice(0, -1).filter((r) => r.deref() !== undefined).length).toBeLessThanOrEqual(1);
  });
});
