// The SDK client settings a Worker, a page or a test passes (`fetch`, `dangerouslyAllowBrowser`)
// reach the official SDKs through every provider and through createProvider; and the providers
// read the environment only where the runtime has one.
import { afterEach, describe, expect, it } from 'vitest';
import { envSeconds } from './base-provider.js';
import { createProvider } from './create-provider.js';
import { AnthropicProvider } from './anthropic-provider.js';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { OpenAIResponsesProvider } from './openai-responses-provider.js';
import { processEnv } from './process-env.js';
import { resolveProviderConfig } from './registry/resolve-provider-config.js';
import { message } from './test-support/anthropic-wire.js';
import { completion } from './test-support/openai-wire.js';
import { responseBody, textItem } from './test-support/responses-wire.js';

/** A fetch that answers `body` as JSON and records what was asked of it. */
function recordingFetch(body: unknown): { fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: async (input, init) => {
      urls.push(new Request(input, init).url);
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    },
  };
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('fetch reaches the SDK clients', () => {
  it('OpenAICompatProvider, OpenAIResponsesProvider and AnthropicProvider send through the given fetch', async () => {
    const chat = recordingFetch(completion({ content: 'from chat' }));
    expect((await new OpenAICompatProvider({ model: 'm', baseUrl: 'http://nowhere.invalid/v1', fetch: chat.fetch }).chat(ask)).content).toBe('from chat');
    expect(chat.urls).toEqual(['http://nowhere.invalid/v1/chat/completions']);

    const responses = recordingFetch(responseBody([textItem('from responses')]));
    expect((await new OpenAIResponsesProvider({ model: 'm', baseUrl: 'http://nowhere.invalid/v1', apiKey: 'k', fetch: responses.fetch }).chat(ask)).content).toBe('from responses');
    expect(responses.urls).toEqual(['http://nowhere.invalid/v1/responses']);

    const anthropic = recordingFetch(message([{ type: 'text', text: 'from claude' }]));
    expect((await new AnthropicProvider({ model: 'm', baseUrl: 'http://nowhere.invalid', apiKey: 'k', fetch: anthropic.fetch }).chat(ask)).content).toBe('from claude');
    expect(anthropic.urls).toEqual(['http://nowhere.invalid/v1/messages']);
  });

  it('createProvider passes fetch to the backend it builds (OpenAI-compatible and Anthropic)', async () => {
    const deepseek = recordingFetch(completion({ content: 'from deepseek' }));
    const provider = await createProvider({ model: 'deepseek-chat', apiKey: 'k', env: {}, fetch: deepseek.fetch });
    expect((await provider.chat(ask)).content).toBe('from deepseek');
    expect(deepseek.urls).toEqual(['https://api.deepseek.com/chat/completions']);

    const claude = recordingFetch(message([{ type: 'text', text: 'from claude' }]));
    const anthropic = await createProvider({ provider: 'anthropic', apiKey: 'k', env: {}, fetch: claude.fetch });
    expect((await anthropic.chat(ask)).content).toBe('from claude');
    expect(claude.urls).toEqual(['https://api.anthropic.com/v1/messages']);
  });
});

describe('dangerouslyAllowBrowser reaches the SDK clients', () => {
  // The SDKs tell a page by `window.document` and `navigator`; the test sets them as a page has
  // them (Node 21+ has a navigator of its own, which stays).
  const added: string[] = [];
  afterEach(() => {
    for (const name of added.splice(0)) Reflect.deleteProperty(globalThis, name);
  });

  it('a browser-like global refuses without it and builds with it', async () => {
    for (const [name, value] of [['window', { document: {} }], ['navigator', { userAgent: 'test' }]] as const) {
      if (name in globalThis) continue;
      Object.defineProperty(globalThis, name, { value, configurable: true });
      added.push(name);
    }
    await expect(createProvider({ model: 'deepseek-chat', apiKey: 'k', env: {} })).rejects.toThrow(/browser-like environment/);
    expect(() => new AnthropicProvider({ model: 'm', apiKey: 'k' })).toThrow(/browser-like environment/);
    expect((await createProvider({ model: 'deepseek-chat', apiKey: 'k', env: {}, dangerouslyAllowBrowser: true })).name).toBe('deepseek');
    expect((await createProvider({ provider: 'anthropic', apiKey: 'k', env: {}, dangerouslyAllowBrowser: true })).name).toBe('anthropic');
  });
});

describe('the environment where there is none', () => {
  it('reads as empty without a process global (browsers, edge functions, Workers without nodejs_compat)', () => {
    const host = globalThis.process;
    // Synchronous, so nothing else runs while the global is gone.
    Reflect.deleteProperty(globalThis, 'process');
    let seen: unknown[];
    try {
      seen = [processEnv(), envSeconds('NANOBOT_STREAM_IDLE_TIMEOUT_S', 90_000), resolveProviderConfig({ model: 'deepseek-chat', apiKey: 'k' }).provider];
    } finally {
      globalThis.process = host;
    }
    expect(seen).toEqual([{}, 90_000, 'deepseek']);
  });

  it('is the process environment where there is one, read on every call', () => {
    process.env.NANOBOT_SDK_OPTIONS_PROBE = '7';
    try {
      expect(processEnv().NANOBOT_SDK_OPTIONS_PROBE).toBe('7');
      expect(envSeconds('NANOBOT_SDK_OPTIONS_PROBE', 1)).toBe(7000);
    } finally {
      delete process.env.NANOBOT_SDK_OPTIONS_PROBE;
    }
  });
});
