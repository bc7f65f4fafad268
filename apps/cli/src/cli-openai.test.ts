import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

let server: FakeOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A "model" that lists the workspace, then answers with what the tool returned. */
function script(body: Record<string, any>): { content?: string; toolCalls?: { id: string; name: string; arguments: string }[] } {
  const toolMessage = (body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
  if (!toolMessage) return { content: 'Looking.', toolCalls: [{ id: 'call_a', name: 'list_dir', arguments: '{"path": "."}' }] };
  return { content: `The workspace holds: ${toolMessage.content.split('\n').join(', ')}. Done.` };
}

describe('nanobot run against an OpenAI-compatible server (OPENAI_BASE_URL)', () => {
  it('streams the reply and runs the tool the model asked for', async () => {
    server = await startFakeOpenAiServer(script);
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'apple.txt'), 'a\n');
    writeFileSync(join(workspace, 'pear.txt'), 'p\n');
    const result = await runCli(['run', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s'), '--model', 'fake-model'], {
      env: cleanEnv({ OPENAI_BASE_URL: server.url }),
    });
    expect(result.stderr).not.toMatch(/offline/);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`model: fake-model (openai at ${server.url})`);
    expect(result.stderr).toMatch(/▸ list_dir path=\./);
    expect(result.stdout).toContain('The workspace holds: apple.txt, pear.txt. Done.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((r) => r.stream === true)).toBe(true);
    expect(server.requests[0].model).toBe('fake-model');
    expect(server.requests[0].tools.map((t: { function: { name: string } }) => t.function.name)).toContain('list_dir');
    // The second request carries the real tool result.
    const tool = server.requests[1].messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool).toMatchObject({ tool_call_id: 'call_a', content: 'apple.txt\npear.txt' });
  });

  it('--json shows the streamed deltas; --no-stream uses whole JSON answers', async () => {
    server = await startFakeOpenAiServer(script);
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'kiwi.txt'), 'k\n');
    const env = cleanEnv({ OPENAI_BASE_URL: server.url, NANOBOT_MODEL: 'fake-model' });
    const streamed = await runCli(['run', '--json', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s')], { env });
    expect(streamed.code).toBe(0);
    const events = streamed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; delta?: string });
    expect(events[0]).toMatchObject({ type: 'cli_start', offline: false, provider: 'openai', model: 'fake-model' });
    const deltas = events.filter((e) => e.type === 'model_delta').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toContain('The workspace holds: kiwi.txt. Done.');

    const before = server.requests.length;
    const whole = await runCli(['run', '--no-stream', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s')], { env });
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('The workspace holds: kiwi.txt. Done.');
    expect(server.requests.slice(before).map((r) => r.stream ?? false)).toEqual([false, false]);
  });

  it('learns estimate vs billed input tokens and keeps it beside the sessions for the next run', async () => {
    // Bills about one token per 3 characters of what it was sent: a ratio the calibrator accepts.
    server = await startFakeOpenAiServer((body) => ({ ...script(body), promptTokens: Math.round(JSON.stringify([body.messages, body.tools]).length / 3) }));
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'plum.txt'), 'p\n');
    const sessions = tempDir('s');
    const env = cleanEnv({ OPENAI_BASE_URL: server.url, NANOBOT_MODEL: 'fake-model' });
    const first = await runCli(['run', '--json', '-m', 'what is here?', '-w', workspace, '--sessions-dir', sessions], { env });
    expect(first.code).toBe(0);
    const saved = JSON.parse(readFileSync(join(sessions, 'usage-calibration.json'), 'utf8')) as { version: number; models: Record<string, number[]> };
    expect(saved.version).toBe(1);
    expect(saved.models['fake-model']).toHaveLength(2);
    type End = { type: string; tokensEstimated?: number; tokensCalibrated?: number; tokensActual?: number };
    const ends = (out: string): End[] => out.trim().split('\n').map((l) => JSON.parse(l) as End).filter((e) => e.type === 'model_end');
    const [cold] = ends(first.stdout);
    expect(cold.tokensCalibrated).toBe(cold.tokensEstimated);
    expect(cold.tokensActual).toBe(server.requests.length > 0 ? Math.round(JSON.stringify([server.requests[0].messages, server.requests[0].tools]).length / 3) : -1);
    // inspect sizes the session by what that run learned, as the next run does.
    const inspected = await runCli(['inspect', '--json', '-w', workspace, '--sessions-dir', sessions], { env });
    expect(inspected.code).toBe(0);
    const { budget } = JSON.parse(inspected.stdout) as { budget: { model: string; tokenizer: string; tokensAfter: number; tokensEstimated: number; tokensCalibrated: number } };
    expect(budget).toMatchObject({ model: 'fake-model', tokenizer: 'cl100k_base' });
    expect(budget.tokensEstimated).toBe(budget.tokensAfter);
    expect(budget.tokensCalibrated).toBeGreaterThan(budget.tokensEstimated);
    expect(readFileSync(join(sessions, 'usage-calibration.json'), 'utf8')).toBe(`${JSON.stringify(saved)}\n`);
    const second = await runCli(['run', '--json', '-m', 'and now?', '-w', workspace, '--sessions-dir', sessions], { env });
    expect(second.code).toBe(0);
    const [warm] = ends(second.stdout);
    expect(warm.tokensCalibrated).toBeGreaterThan(warm.tokensEstimated!);
    // The same calibration: the same factor (up to rounding up) on both.
    expect(budget.tokensCalibrated / budget.tokensEstimated).toBeCloseTo(warm.tokensCalibrated! / warm.tokensEstimated!, 1);
  });

  it('a config file can point at the server instead of the environment', async () => {
    server = await startFakeOpenAiServer(script);
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'fig.txt'), 'f\n');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(workspace, '.nanobot'));
    writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify({ provider: 'openai', baseUrl: server.url, model: 'from-config', sessionsDir: tempDir('s') }));
    const result = await runCli(['run', '-m', 'what is here?', '-w', workspace], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('fig.txt');
    expect(server.requests[0].model).toBe('from-config');
  });

  it('shows what the model delivers with the message tool', async () => {
    server = await startFakeOpenAiServer((body) => {
      const done = (body.messages as { role: string }[]).some((m) => m.role === 'tool');
      return done ? { content: 'Sent.' } : { toolCalls: [{ id: 'call_m', name: 'message', arguments: '{"content": "Reminder: water the plants"}' }] };
    });
    const env = cleanEnv({ OPENAI_BASE_URL: server.url, NANOBOT_MODEL: 'fake-model' });
    const human = await runCli(['run', '-m', 'remind me', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('✉ Reminder: water the plants');
    const json = await runCli(['run', '--json', '-m', 'remind me', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env });
    const events = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; content?: string });
    expect(events.find((e) => e.type === 'cli_message')).toMatchObject({ content: 'Reminder: water the plants' });
  });
});
