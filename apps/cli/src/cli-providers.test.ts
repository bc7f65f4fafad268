// Any registry provider from the CLI, as a user would configure it: a provider's own key
// variable, the config file's `providers` section, `--provider <name>`, `nanobot providers`, and
// the window read from the provider's models endpoint. The model side is tooling/provider-wire's
// stand-ins on 127.0.0.1, which reject what the real APIs reject.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropicServer, startOpenAIChatServer } from '@nanobot-internal/provider-wire';
import type { WireServer } from '@nanobot-internal/provider-wire';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

let server: WireServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A workspace whose config file holds `config`. */
function workspaceWith(config: unknown): string {
  const workspace = tempDir('ws');
  mkdirSync(join(workspace, '.nanobot'));
  writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify(config));
  return workspace;
}

describe('nanobot with any registry provider', () => {
  it('DEEPSEEK_API_KEY and --model deepseek-chat reach DeepSeek (its endpoint from the providers section) and run a turn', async () => {
    server = await startOpenAIChatServer({ vendor: 'deepseek' });
    server.enqueue({ text: 'Hello from DeepSeek.' });
    const workspace = workspaceWith({ providers: { deepseek: { apiBase: server.url } } });
    const result = await runCli(['run', '-m', 'hi', '-w', workspace, '--sessions-dir', tempDir('s'), '--model', 'deepseek-chat'], {
      env: cleanEnv({ DEEPSEEK_API_KEY: 'sk-deepseek-test' }),
    });
    expect(result.stderr).not.toMatch(/offline/);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`model: deepseek-chat (deepseek at ${server.url})`);
    expect(result.stdout).toContain('Hello from DeepSeek.');
    const sent = server.requests.filter((r) => r.path === '/chat/completions');
    expect(sent).toHaveLength(1);
    expect(sent[0].violations).toEqual([]);
    expect(sent[0].headers.authorization).toBe('Bearer sk-deepseek-test');
    expect(sent[0].body).toMatchObject({ model: 'deepseek-chat' });
  });

  it('--provider names any registry provider; a <name>/ model prefix too', async () => {
    server = await startOpenAIChatServer({ vendor: 'mistral' });
    server.enqueue({ text: 'Bonjour.' }, { text: 'Encore.' });
    const env = cleanEnv({ MISTRAL_API_KEY: 'mk' });
    const workspace = workspaceWith({ providers: { mistral: { apiBase: `${server.url}/v1` } } });
    const named = await runCli(['run', '-m', 'hi', '-w', workspace, '--sessions-dir', tempDir('s'), '--provider', 'mistral', '--model', 'mistral-small-latest'], { env });
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('Bonjour.');
    const prefixed = await runCli(['run', '-m', 'hi', '-w', workspace, '--sessions-dir', tempDir('s'), '--model', 'mistral/mistral-small-latest'], { env });
    expect(prefixed.code).toBe(0);
    expect(prefixed.stderr).toContain('model: mistral-small-latest (mistral at');
    expect(server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => (r.body as { model: string }).model)).toEqual(['mistral-small-latest', 'mistral-small-latest']);
  });

  it('--provider unknown is a clear error naming the field; nothing runs', async () => {
    const result = await runCli(['run', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s'), '--provider', 'unknown'], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^nanobot: --provider: Unknown provider "unknown": use a registry name \(`nanobot providers` lists them/);
    const fromEnv = await runCli(['run', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env: cleanEnv({ NANOBOT_PROVIDER: 'nope' }) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('NANOBOT_PROVIDER: Unknown provider "nope"');
  });

  it('an OAuth-only provider, a provider without its key and a malformed providers section are refused naming the field', async () => {
    const oauth = await runCli(['run', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s'), '--provider', 'github_copilot'], { env: cleanEnv() });
    expect(oauth.code).toBe(2);
    expect(oauth.stderr).toContain('signs in with OAuth');
    const keyless = await runCli(['run', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s'), '--provider', 'deepseek'], { env: cleanEnv() });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toMatch(/providers\.deepseek\.apiKey|DEEPSEEK_API_KEY/);
    const misspelt = await runCli(['run', '-m', 'hi', '-w', workspaceWith({ providers: { deepseek: { apikey: 'x' } } }), '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain('providers.deepseek.apikey is not a provider setting');
  });

  it('nanobot providers lists the registry, marks what is configured and fits the terminal width', async () => {
    const workspace = workspaceWith({ providers: { corp: { apiBase: 'https://llm.corp.example/v1' } } });
    const env = cleanEnv({ DEEPSEEK_API_KEY: 'k', COLUMNS: '60' });
    const result = await runCli(['providers', '-w', workspace], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('47 providers, 2 configured (✓).');
    expect(result.stdout).toMatch(/^✓ deepseek\s+DEEPSEEK_API_KEY$/m);
    expect(result.stdout).toMatch(/^ {4}https:\/\/api\.deepseek\.com$/m);
    expect(result.stdout).toMatch(/^✓ corp/m);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(60);

    const json = await runCli(['providers', '--json', '-w', workspace, '--model', 'deepseek-chat'], { env });
    const overview = JSON.parse(json.stdout) as { providers: { name: string; configuredBy?: string }[]; chosen: { provider: string; model: string } };
    expect(overview.providers).toHaveLength(47);
    expect(overview.chosen).toEqual({ provider: 'deepseek', model: 'deepseek-chat', rule: 'keyword' });
    expect(overview.providers.filter((p) => p.configuredBy).map((p) => p.name)).toEqual(['deepseek', 'corp']);
  });
});

describe('the window from the provider', () => {
  it("reads the model's window from Anthropic's /v1/models, keeps it beside the sessions and governs with it", async () => {
    server = await startAnthropicServer({ models: [{ id: 'claude-haiku-4-5', maxInputTokens: 150_000, maxTokens: 32_000 }] });
    const sessions = tempDir('s');
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url });
    const result = await runCli(['run', '--json', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', sessions, '--model', 'claude-haiku-4-5'], { env });
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.type === 'model_facts')).toMatchObject({ source: 'provider', contextWindow: 150_000, maxOutput: 32_000, windowTokens: 150_000, replyTokens: 16_384 });
    const stored = JSON.parse(readFileSync(join(sessions, 'model-facts.json'), 'utf8')) as { models: Record<string, unknown> };
    expect(Object.values(stored.models)).toEqual([expect.objectContaining({ contextWindow: 150_000, maxOutput: 32_000 })]);
    expect(server.requests.filter((r) => r.path === '/v1/models/claude-haiku-4-5')).toHaveLength(1);

    // --context-window wins: no lookup.
    const fixed = await runCli(['run', '--json', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s'), '--model', 'claude-haiku-4-5', '--context-window', '32000'], { env });
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).not.toContain('"model_facts"');
    expect(server.requests.filter((r) => r.path.startsWith('/v1/models'))).toHaveLength(1);
  });

  it('a models endpoint that fails falls back to the model table, says so once, and the turn runs', async () => {
    server = await startAnthropicServer({ models: [] });
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url });
    const result = await runCli(['run', '-m', 'hi', '-w', tempDir('ws'), '--sessions-dir', tempDir('s'), '--model', 'claude-sonnet-4-6'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ok');
    const notices = result.stderr.split('\n').filter((l) => l.includes('model facts for claude-sonnet-4-6'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/404.*the built-in model table serves/);
  });
});
