import { describe, expect, it } from 'vitest';
import { ABORTED, raceSignal } from './race-signal.js';

describe('raceSignal', () => {
  it('settles with the promise value when the signal never aborts', async () => {
    const controller = new AbortController();
    await expect(raceSignal(Promise.resolve(7), controller.signal)).resolves.toBe(7);
  });

  it('passes a rejection through while the signal is live', async () => {
    const controller = new AbortController();
    await expect(raceSignal(Promise.reject(new Error('boom')), controller.signal)).rejects.toThrow('boom');
  });

  it('resolves with ABORTED when the signal aborts first, and swallows a later rejection', async () => {
    const controller = new AbortController();
    let reject!: (error: Error) => void;
    const pending = new Promise<number>((_, r) => (reject = r));
    const raced = raceSignal(pending, controller.signal);
    controller.abort();
    await expect(raced).resolves.toBe(ABORTED);
    reject(new Error('late'));
  });

  it('resolves with ABORTED at once for an already-aborted signal', async () => {
    const pending = Promise.reject(new Error('ignored'));
    await expect(raceSignal(pending, AbortSignal.abort())).resolves.toBe(ABORTED);
  });

  it('removes its abort listener once the promise settles', async () => {
    const controller = new AbortController();
    const { signal } = controller;
    let listeners = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof remove;
    await raceSignal(Promise.resolve('x'), signal);
    expect(listeners).toBe(0);
  });
});
