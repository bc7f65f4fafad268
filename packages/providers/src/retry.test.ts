import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withRetry, withStreamRetry, retryDelayMs, retryWaitMessage } from './with-retry.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { retryAfterFromHeaders, retryAfterFromText } from './retry-after.js';
import { toProviderError } from './classify-error.js';
import type { LLMStreamEvent } from '@nanobot/schema';
import { envSeconds } from './base-provider.js';

const err = (retryable: boolean, retryAfterMs?: number) => new ProviderError('x', { kind: retryable ? 'server' : 'bad_request', retryable, retryAfterMs });

describe('retry-after parsing', () => {
  it('reads retry-after-ms, seconds and HTTP dates; floors at 100 ms', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(retryAfterFromHeaders(h({ 'retry-after-ms': '1500' }))).toBe(1500);
    expect(retryAfterFromHeaders(h({ 'retry-after': '7' }))).toBe(7000);
    expect(retryAfterFromHeaders(h({ 'retry-after': '0' }))).toBe(100);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterFromHeaders(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterFromHeaders(h({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now)).toBe(100);
    expect(retryAfterFromHeaders(h({ 'retry-after-ms': '2500', 'retry-after': '9' }))).toBe(2500);
    expect(retryAfterFromHeaders(h({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });
  it('reads hints written in error text', () => {
    expect(retryAfterFromText('Rate limit reached. Please try again in 20s.')).toBe(20_000);
    expect(retryAfterFromText('retry after 250 ms')).toBe(250);
    expect(retryAfterFromText('{"retry_after": 3}')).toBe(3000);
    expect(retryAfterFromText('wait 2 minutes before retrying')).toBe(120_000);
    expect(retryAfterFromText('nothing here')).toBeUndefined();
  });
});

describe('retry progress (reference wording)', () => {
  it('a "7s" hint waits 8 s and says so', () => {
    const error = new ProviderError('Rate limited, please retry after 7s', { kind: 'rate_limit', retryable: true, retryAfterMs: retryAfterFromText('Rate limited, please retry after 7s') });
    const delayMs = retryDelayMs(error, 1);
    expect(delayMs).toBe(8000);
    expect(retryWaitMessage({ attempt: 1, delayMs })).toBe('Model request failed, retry in 8s (attempt 1).');
    expect(retryWaitMessage({ attempt: 2, delayMs: 2500 })).toBe('Model request failed, retry in 2s (attempt 2).');
    expect(retryWaitMessage({ attempt: 3, delayMs: 200 })).toBe('Model request failed, retry in 1s (attempt 3).');
  });
});

describe('toProviderError', () => {
  it('does not call an error retryable because its text contains "500"', () => {
    const e = toProviderError(Object.assign(new Error('Invalid max_tokens: 500 is too large'), { status: 400 }), 'openai');
    expect(e).toMatchObject({ retryable: false, kind: 'bad_request' });
  });
  it('classifies by status and headers (x-should-retry wins)', () => {
    const withHeaders = (status: number, headers: Record<string, string>) => Object.assign(new Error('e'), { status, headers: new Headers(headers) });
    expect(toProviderError(withHeaders(409, {}), 'p')).toMatchObject({ retryable: true });
    expect(toProviderError(withHeaders(401, {}), 'p')).toMatchObject({ kind: 'auth', retryable: false });
    expect(toProviderError(withHeaders(400, { 'x-should-retry': 'true' }), 'p')).toMatchObject({ retryable: true });
    expect(toProviderError(withHeaders(503, { 'x-should-retry': 'false' }), 'p')).toMatchObject({ retryable: false });
    expect(toProviderError(withHeaders(400, {}), 'p')).toMatchObject({ kind: 'bad_request' });
    expect(toProviderError(Object.assign(new Error('prompt is too long: 210000 tokens'), { status: 400 }), 'p')).toMatchObject({ kind: 'context_length' });
  });
  it('treats a bare TypeError("terminated") as a dropped connection', () => {
    expect(toProviderError(new TypeError('terminated'), 'p')).toMatchObject({ kind: 'connection', retryable: true });
    expect(toProviderError(Object.assign(new Error('read'), { cause: { code: 'ECONNRESET' } }), 'p')).toMatchObject({ kind: 'connection' });
  });
  it('maps an abort to ProviderAbortError', () => {
    const c = new AbortController();
    c.abort();
    expect(toProviderError(new Error('whatever'), 'p', c.signal)).toBeInstanceOf(ProviderAbortError);
  });
});

describe('withRetry', () => {
  it('property: attempts ≤ maxAttempts, stops at the first non-retryable error or success, waits once per retry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('ok', 'retry', 'fatal'), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5 }), async (outcomes, maxAttempts) => {
        let calls = 0;
        const sleeps: number[] = [];
        const result = await withRetry(
          async () => {
            const o = outcomes[Math.min(calls++, outcomes.length - 1)];
            if (o === 'ok') return 'done';
            throw err(o === 'retry');
          },
          { maxAttempts, sleep: async (ms) => void sleeps.push(ms) },
        ).catch((e: unknown) => e);
        expect(calls).toBeLessThanOrEqual(maxAttempts);
        expect(sleeps).toHaveLength(calls - 1);
        for (let i = 0; i < calls - 1; i++) expect(outcomes[Math.min(i, outcomes.length - 1)]).toBe('retry');
        if (result === 'done') expect(outcomes[Math.min(calls - 1, outcomes.length - 1)]).toBe('ok');
      }),
    );
  });

  it('never waits longer than the cap', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10 }), (hint, attempt) => {
      expect(retryDelayMs(err(true, hint), attempt, { maxDelayMs: 60_000 })).toBeLessThanOrEqual(60_000);
    }));
  });

  it('rethrows non-ProviderErrors untouched', async () => {
    const boom = new RangeError('bug');
    await expect(withRetry(async () => { throw boom; }, { sleep: async () => {} })).rejects.toBe(boom);
  });

  it('stream retry: retried before output, never after', async () => {
    let opened = 0;
    const events: LLMStreamEvent[] = [];
    async function* once(): AsyncGenerator<LLMStreamEvent> {
      opened++;
      if (opened === 1) throw err(true);
      yield { type: 'text_delta', delta: 'a' };
      if (opened === 2) throw err(true);
    }
    await expect((async () => { for await (const e of withStreamRetry(once, { sleep: async () => {} })) events.push(e); })()).rejects.toBeInstanceOf(ProviderError);
    expect(opened).toBe(2);
    expect(events).toHaveLength(1);
  });

  it('the default sleep rejects when the signal aborts', async () => {
    const c = new AbortController();
    const p = withRetry(async () => { throw err(true); }, {}, c.signal);
    c.abort();
    await expect(p).rejects.toBeInstanceOf(ProviderAbortError);
  });
});

describe('envSeconds (reference timeout knobs)', () => {
  it('reads positive seconds, caps them, and falls back on junk', () => {
    expect(envSeconds('T', 90_000, 3600, { T: '30' })).toBe(30_000);
    expect(envSeconds('T', 90_000, 3600, { T: '99999' })).toBe(3_600_000);
    for (const junk of ['0', '-5', 'abc', '', undefined]) expect(envSeconds('T', 90_000, 3600, { T: junk })).toBe(90_000);
  });
});
