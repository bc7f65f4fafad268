import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadedModules as traced } from '@nanobot-internal/test-support';

const packageDir = join(import.meta.dirname, '..');
/** The module URLs `code` resolved in a fresh Node (source condition, tracing hooks). */
const loadedModules = (_name: string, code: string): string[] => traced(packageDir, code, { OPENAI_API_KEY: 'sk-x', ANTHROPIC_API_KEY: '' });

const anthropicSdk = (urls: string[]) => urls.some((u) => u.includes('/@anthropic-ai/sdk/'));
const openaiSdk = (urls: string[]) => urls.some((u) => /\/node_modules\/openai\//.test(u));

describe('subpath isolation (each SDK loads only when its provider is used)', () => {
  it('@nanobot/providers/openai loads the openai SDK but not the Anthropic one', () => {
    const urls = loadedModules('openai', "const m = await import('@nanobot/providers/openai'); if (typeof m.OpenAICompatProvider !== 'function') process.exit(3);");
    expect(openaiSdk(urls)).toBe(true);
    expect(anthropicSdk(urls)).toBe(false);
  });

  it('@nanobot/providers/anthropic loads the Anthropic SDK but not the openai one', () => {
    const urls = loadedModules('anthropic', "const m = await import('@nanobot/providers/anthropic'); if (typeof m.AnthropicProvider !== 'function') process.exit(3);");
    expect(anthropicSdk(urls)).toBe(true);
    expect(openaiSdk(urls)).toBe(false);
  });

  it('@nanobot/providers/openai-responses loads the openai SDK but not the Anthropic one; createProvider builds it by name', () => {
    const urls = loadedModules('responses', "const m = await import('@nanobot/providers/openai-responses'); if (typeof m.OpenAIResponsesProvider !== 'function') process.exit(3);");
    expect(openaiSdk(urls)).toBe(true);
    expect(anthropicSdk(urls)).toBe(false);
    const created = loadedModules('create-responses', "const { createProvider } = await import('@nanobot/providers'); const p = await createProvider({ provider: 'openai-responses' }); if (p.name !== 'openai-responses' || p.defaultModel !== 'gpt-5.4-mini') process.exit(4);");
    expect(anthropicSdk(created)).toBe(false);
  });

  it('the root entry and /testing load neither SDK; createProvider loads only the chosen one', () => {
    const root = loadedModules('root', "await import('@nanobot/providers'); await import('@nanobot/providers/testing');");
    expect(openaiSdk(root)).toBe(false);
    expect(anthropicSdk(root)).toBe(false);
    const created = loadedModules('create', "const { createProvider } = await import('@nanobot/providers'); const p = await createProvider(); if (p.name !== 'openai') process.exit(4);");
    expect(openaiSdk(created)).toBe(true);
    expect(anthropicSdk(created)).toBe(false);
  });
});
