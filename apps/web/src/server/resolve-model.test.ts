import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { OFFLINE_CONTEXT_WINDOW, modelWindow, resolveModel } from './resolve-model.js';

describe('resolveModel', () => {
  it('runs the offline scripted model when nothing is configured', async () => {
    const model = await resolveModel({});
    expect(model).toMatchObject({ offline: true, model: 'offline-demo', contextWindowTokens: OFFLINE_CONTEXT_WINDOW });
    expect(model.provider.name).toBe('offline');
  });

  it('uses the provider the registry chooses, as the CLI: any key variable, NANOBOT_PROVIDER, NANOBOT_MODEL, NANOBOT_CONTEXT_WINDOW', async () => {
    const local = await resolveModel({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', NANOBOT_MODEL: 'llama3', NANOBOT_CONTEXT_WINDOW: '32768' });
    expect(local).toMatchObject({ offline: false, model: 'llama3', contextWindowTokens: 32768, windowSet: true });
    expect(local.provider.name).toBe('openai');
    const anthropic = await resolveModel({ ANTHROPIC_API_KEY: 'sk-test' });
    expect(anthropic).toMatchObject({ offline: false, model: 'claude-sonnet-4-6', windowSet: false });
    expect(anthropic.provider.name).toBe('anthropic');
    const deepseek = await resolveModel({ DEEPSEEK_API_KEY: 'k', NANOBOT_MODEL: 'deepseek-chat' });
    expect(deepseek.resolved).toMatchObject({ provider: 'deepseek', baseUrl: 'https://api.deepseek.com', governorTarget: 'deepseek' });
    const named = await resolveModel({ GEMINI_API_KEY: 'g', DEEPSEEK_API_KEY: 'k' }, { provider: 'gemini' });
    expect(named).toMatchObject({ model: 'gemini-3-flash-preview' });
    expect(named.provider.name).toBe('gemini');
  });

  it('--offline wins over a configured key; a bad window falls back to the default', async () => {
    const model = await resolveModel({ OPENAI_API_KEY: 'sk-test', NANOBOT_CONTEXT_WINDOW: 'lots' }, { offline: true });
    expect(model).toMatchObject({ offline: true, contextWindowTokens: OFFLINE_CONTEXT_WINDOW });
  });

  it('a configuration the registry refuses is a ConfigurationError naming where it came from', async () => {
    const unknown = await resolveModel({ NANOBOT_PROVIDER: 'nope' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ConfigurationError);
    expect((unknown as Error).message).toMatch(/^NANOBOT_PROVIDER: Unknown provider "nope"/);
    const keyless = await resolveModel({}, { provider: 'deepseek' }).catch((e: unknown) => e);
    expect((keyless as Error).message).toContain('DEEPSEEK_API_KEY');
    await expect(resolveModel({}, { provider: 'github_copilot' })).rejects.toThrow(/OAuth/);
  });
});

describe('modelWindow', () => {
  it("reads the window from the provider's models endpoint into a file beside the sessions; a failure falls back to the table and says so", async () => {
    let status = 200;
    const server = createServer((req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { type: 'model', id: 'claude-haiku-4-5', display_name: 'Haiku', created_at: '2026-01-01T00:00:00Z', max_input_tokens: 100_000, max_tokens: 8000 } : { type: 'error', error: { type: 'not_found_error', message: req.url } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sessions = mkdtempSync(join(tmpdir(), 'nanobot-web-facts-'));
    try {
      const model = await resolveModel({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url, NANOBOT_MODEL: 'claude-haiku-4-5' });
      const sized = await modelWindow(model, sessions);
      expect(sized).toMatchObject({ contextWindowTokens: 100_000, maxTokens: 8000, facts: { source: 'provider' } });
      expect(JSON.parse(readFileSync(join(sessions, 'model-facts.json'), 'utf8'))).toMatchObject({ version: 1 });

      status = 404;
      const other = await resolveModel({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url, NANOBOT_MODEL: 'claude-sonnet-4-6' });
      const fallback = await modelWindow(other, sessions);
      expect(fallback).toMatchObject({ contextWindowTokens: 1_000_000, maxTokens: 16_384, facts: { source: 'table' } });
      expect(fallback.facts?.problem).toMatch(/404.*the built-in model table serves/);

      // A window that was set is not looked up.
      const set = await resolveModel({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url, NANOBOT_CONTEXT_WINDOW: '20000' });
      expect(await modelWindow(set, sessions)).toEqual({ contextWindowTokens: 20000, maxTokens: 4096, facts: null });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(sessions, { recursive: true, force: true });
    }
  });
});
