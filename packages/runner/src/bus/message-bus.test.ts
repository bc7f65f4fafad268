import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AsyncQueue } from '../async-queue.js';
import { MessageBus, inboundSessionKey, isUserInput } from './index.js';
import { KeyedScheduler } from '../keyed-scheduler.js';

describe('AsyncQueue / MessageBus', () => {
  it('keeps FIFO order across waiting and queued takes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer(), { maxLength: 50 }), fc.integer({ min: 0, max: 10 }), async (items, early) => {
        const q = new AsyncQueue<number>();
        const waiting = Array.from({ length: Math.min(early, items.length) }, () => q.take());
        for (const item of items) q.push(item);
        const rest: number[] = [];
        while (q.size > 0) rest.push(q.tryTake()!);
        expect([...(await Promise.all(waiting)), ...rest]).toEqual(items);
      }),
    );
  });

  it('a cancelled take loses nothing', async () => {
    const q = new AsyncQueue<string>();
    const controller = new AbortController();
    const pending = q.take(controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    q.push('kept');
    expect(await q.take()).toBe('kept');
  });

  it('routes session keys and user/system input', async () => {
    const bus = new MessageBus();
    const seen: string[] = [];
    bus.onOutbound((m) => seen.push(m.content));
    bus.publishOutbound({ channel: 'cli', chatId: '1', content: 'out' });
    expect(await bus.consumeOutbound()).toMatchObject({ content: 'out' });
    expect(seen).toEqual(['out']);
    const msg = { channel: 'telegram', senderId: 'u', chatId: '42', content: 'hi' };
    bus.publishInbound(msg);
    expect(await bus.consumeInbound()).toBe(msg);
    expect(inboundSessionKey(msg)).toBe('telegram:42');
    expect(inboundSessionKey({ ...msg, sessionKeyOverride: 'x' })).toBe('x');
    expect(isUserInput(msg)).toBe(true);
    expect(isUserInput({ ...msg, channel: 'system' })).toBe(false);
    expect(isUserInput({ ...msg, channel: 'system', inputRole: 'user' })).toBe(true);
  });
});

describe('KeyedScheduler', () => {
  it('is serial per key, concurrent across keys up to the limit', async () => {
    const scheduler = new KeyedScheduler(2);
    let running = 0;
    let peak = 0;
    const order: Record<string, number[]> = {};
    const tasks: Promise<void>[] = [];
    for (let i = 0; i < 30; i += 1) {
      const key = `k${i % 5}`;
      tasks.push(
        scheduler.run(key, async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 1));
          (order[key] ??= []).push(i);
          running -= 1;
        }),
      );
    }
    await Promise.all(tasks);
    expect(peak).toBe(2);
    for (const [key, list] of Object.entries(order)) {
      expect(list).toEqual([...list].sort((a, b) => a - b));
      expect(list.every((i) => `k${i % 5}` === key)).toBe(true);
    }
  });

  it('a failing task does not block the next one of its key', async () => {
    const scheduler = new KeyedScheduler(1);
    const first = scheduler.run('a', async () => {
      throw new Error('x');
    });
    const second = scheduler.run('a', async () => 'ok');
    await expect(first).rejects.toThrow('x');
    expect(await second).toBe('ok');
    await new Promise((r) => setTimeout(r, 0));
    expect(scheduler.pendingFor('a')).toBe(0);
  });
});
