import { startAnthropicServer } from '@nanobot-internal/provider-wire';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../anthropic-provider.js';
import { OpenAICompatProvider } from '../openai-compat-provider.js';
import { findProviderSpec } from '../registry/find-provider-spec.js';
import type { ProviderSpec } from '../registry/provider-spec.js';
import { WireServer, replyJson } from '../test-support/wire-server.js';
import { ModelFactsCache } from './model-facts-cache.js';
import type { ModelFactsStore, StoredModelFacts } from './model-facts.js';

// The cache in front of real providers talking to local servers: every failure falls back (a
// stale answer, then the model table) and says why; nothing here ever rejects.

const HOUR = 60 * 60 * 1000;

/** A store kept in a map, counting writes; `failRead` / `failWrite` make it throw like a broken file. */
function memoryStore(initial: Record<string, StoredModelFacts> = {}): ModelFactsStore & { entries: Record<string, StoredModelFacts>; writes: number; failRead?: Error; failWrite?: Error } {
  const store = {
    entries: { ...initial },
    writes: 0,
    failRead: undefined as Error | undefined,
    failWrite: undefined as Error | undefined,
    async read() {
      if (store.failRead) throw store.failRead;
      return { ...store.entries };
    },
    async write(key: string, entry: StoredModelFacts) {
      store.writes++;
      if (store.failWrite) throw store.failWrite;
      store.entries[key] = entry;
    },
  };
  return store;
}

let server: WireServer;
beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const anthropicModel = (id: string, window: number | null, output: number | null) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z', max_input_tokens: window, max_tokens: output });

function claude(model = 'claude-opus-4-7'): AnthropicProvider {
  return new AnthropicProvider({ model, apiKey: 'k', baseUrl: server.url, timeoutMs: 60_000 });
}

describe('ModelFactsCache', () => {
  it('fetches once, stores the answer with its time, serves it from memory and, in a new process, from the store until the TTL', async () => {
    let now = 1_000_000;
    const store = memoryStore();
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    const cache = new ModelFactsCache({ provider: claude(), store, now: () => now, scope: 'api.anthropic.com' });
    const first = await cache.lookup();
    expect(first).toEqual({ provider: 'anthropic', model: 'claude-opus-4-7', contextWindow: 1_000_000, maxOutput: 128_000, source: 'provider', fetchedAt: 1_000_000 });
    expect(store.entries).toEqual({ 'anthropic|api.anthropic.com|claude-opus-4-7': { contextWindow: 1_000_000, maxOutput: 128_000, fetchedAt: 1_000_000 } });
    now += HOUR;
    expect(await cache.lookup('claude-opus-4-7')).toEqual(first);
    expect(server.requests).toHaveLength(1);

    const nextProcess = new ModelFactsCache({ provider: claude(), store, now: () => now, scope: 'api.anthropic.com' });
    expect(await nextProcess.lookup()).toEqual({ ...first, source: 'cache' });
    expect(server.requests).toHaveLength(1);

    // A day later the answer is asked again.
    now += 24 * HOUR;
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 900_000, 100_000)));
    expect(await nextProcess.lookup()).toMatchObject({ contextWindow: 900_000, maxOutput: 100_000, source: 'provider', fetchedAt: now });
    expect(server.requests).toHaveLength(2);
    expect(store.writes).toBe(2);
  });

  it('concurrent lookups of one model share one request', async () => {
    server.enqueue(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 50));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    });
    const cache = new ModelFactsCache({ provider: claude() });
    const all = await Promise.all([cache.lookup(), cache.lookup(), cache.lookup()]);
    expect(new Set(all.map((f) => f.contextWindow))).toEqual(new Set([1_000_000]));
    expect(server.requests).toHaveLength(1);
  });

  it('a 404 falls back to the model table and says so; the endpoint is tried again after the retry delay, not before', async () => {
    let now = 0;
    server.enqueue(replyJson(404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-opus-4-7' } }));
    const cache = new ModelFactsCache({ provider: claude(), now: () => now, retryMs: 60_000 });
    const facts = await cache.lookup();
    expect(facts).toMatchObject({ source: 'table', contextWindow: 1_000_000, maxOutput: 128_000 });
    expect(facts.problem).toMatch(/anthropic's models endpoint failed for claude-opus-4-7: .*404.*; the built-in model table serves/);
    expect(await cache.lookup()).toBe(facts);
    expect(server.requests).toHaveLength(1);
    now = 61_000;
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    expect(await cache.lookup()).toMatchObject({ source: 'provider' });
    expect(server.requests).toHaveLength(2);
  });

  it('a timeout falls back and says how long it waited', async () => {
    server.enqueue(() => undefined); // never answers
    const cache = new ModelFactsCache({ provider: claude('claude-haiku-4-5'), timeoutMs: 200 });
    const facts = await cache.lookup();
    expect(facts).toMatchObject({ source: 'table', contextWindow: 200_000, maxOutput: 64_000 });
    expect(facts.problem).toContain('no answer within 200 ms');
  });

  it('malformed JSON, or JSON that is not a model, falls back', async () => {
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"max_input_tokens": 10');
    });
    const broken = await new ModelFactsCache({ provider: claude() }).lookup();
    expect(broken).toMatchObject({ source: 'table' });
    expect(broken.problem).toContain("anthropic's models endpoint failed");
    server.enqueue(replyJson(200, ['not', 'a', 'model']));
    const odd = await new ModelFactsCache({ provider: claude() }).lookup();
    expect(odd).toMatchObject({ source: 'table' });
    expect(odd.problem).toContain('malformed');
  });

  it('a failed refresh keeps serving the stale answer and says how old it is', async () => {
    const now = 100 * HOUR;
    const store = memoryStore({ 'anthropic||claude-opus-4-7': { contextWindow: 1_000_000, maxOutput: 128_000, fetchedAt: now - 30 * HOUR } });
    server.enqueue(replyJson(503, { type: 'error', error: { type: 'api_error', message: 'busy' } }));
    const facts = await new ModelFactsCache({ provider: claude(), store, now: () => now }).lookup();
    expect(facts).toMatchObject({ source: 'cache', contextWindow: 1_000_000, maxOutput: 128_000, fetchedAt: now - 30 * HOUR });
    expect(facts.problem).toMatch(/503.*using its answer from 30 h ago/);
  });

  it('an unreadable or malformed store is reported and the endpoint serves; a failed write is reported too', async () => {
    const store = memoryStore();
    store.failRead = new Error('EACCES: permission denied, open model-facts.json');
    store.failWrite = new Error('EROFS: read-only file system');
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    const facts = await new ModelFactsCache({ provider: claude(), store }).lookup();
    expect(facts).toMatchObject({ source: 'provider', contextWindow: 1_000_000 });
    expect(facts.problem).toBe('cannot read the model facts file: EACCES: permission denied, open model-facts.json; cannot write the model facts file: EROFS: read-only file system');

    const bad = memoryStore({ 'anthropic||claude-opus-4-7': { fetchedAt: 'yesterday' } as unknown as StoredModelFacts });
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    const fresh = await new ModelFactsCache({ provider: claude(), store: bad }).lookup();
    expect(fresh).toMatchObject({ source: 'provider', problem: 'the stored model facts entry is malformed' });
  });

  it('a figure the endpoint leaves out comes from the table; a model nothing knows says so', async () => {
    server.enqueue(replyJson(200, anthropicModel('claude-sonnet-4-6', 1_000_000, null)));
    expect(await new ModelFactsCache({ provider: claude('claude-sonnet-4-6') }).lookup()).toMatchObject({ source: 'provider', contextWindow: 1_000_000, maxOutput: 64_000 });
    server.enqueue(replyJson(404, { type: 'error', error: { type: 'not_found_error', message: 'model: house-model' } }));
    const unknown = await new ModelFactsCache({ provider: claude('house-model') }).lookup();
    expect(unknown).toEqual({ provider: 'anthropic', model: 'house-model', source: 'none', problem: expect.stringContaining('no window is known for this model') });
    server.enqueue(replyJson(404, { type: 'error', error: { type: 'not_found_error', message: 'model: house-model' } }));
    const fallback = await new ModelFactsCache({ provider: claude('house-model'), fallback: { contextWindow: 65_536, maxOutput: 4096 } }).lookup();
    expect(fallback).toMatchObject({ source: 'default', contextWindow: 65_536, maxOutput: 4096, problem: expect.stringContaining('the default window (65536 tokens) serves') });
  });

  it('a provider that publishes nothing gets the table without a request or a problem', async () => {
    const spec = findProviderSpec('deepseek') as ProviderSpec;
    const deepseek = new OpenAICompatProvider({ model: 'deepseek-chat', apiKey: 'k', baseUrl: `${server.url}/v1`, spec, name: 'deepseek' });
    const facts = await new ModelFactsCache({ provider: deepseek }).lookup();
    expect(facts.problem).toBeUndefined();
    expect(facts.source).toMatch(/table|none/);
    expect(server.requests).toHaveLength(0);
  });

  it("the caller's abort ends the wait with the fallback, which is not remembered", async () => {
    server.enqueue(() => undefined);
    const cache = new ModelFactsCache({ provider: claude() });
    const controller = new AbortController();
    const pending = cache.lookup(undefined, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await pending).toMatchObject({ source: 'table', problem: expect.stringContaining('failed') });
    server.enqueue(replyJson(200, anthropicModel('claude-opus-4-7', 1_000_000, 128_000)));
    expect(await cache.lookup()).toMatchObject({ source: 'provider' });
  });

  it('through the provider-wire Anthropic stand-in end to end', async () => {
    const wire = await startAnthropicServer({ models: [{ id: 'claude-haiku-4-5', maxInputTokens: 200_000, maxTokens: 64_000 }] });
    try {
      const provider = new AnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseUrl: wire.url });
      expect(await new ModelFactsCache({ provider }).lookup()).toMatchObject({ source: 'provider', contextWindow: 200_000, maxOutput: 64_000 });
    } finally {
      await wire.stop();
    }
  });
});
