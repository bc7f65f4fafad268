import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { parseSessionFile, sessionFileName } from '@nanobot/session';
import { keyOf, startFakeAnthropicServer, type FakeAnthropicReply, type FakeAnthropicServer } from './test-support/fake-anthropic-server.js';
import { CliProcess, cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

let server: FakeAnthropicServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A "model" that lists the workspace, then answers with what the tool returned. */
function script(body: Record<string, any>): FakeAnthropicReply {
  const blocks = (body.messages as { role: string; content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as Record<string, any>[]) : []));
  const result = blocks.find((b) => b.type === 'tool_result');
  if (!result) return { text: 'Looking.', toolUses: [{ id: 'toolu_a1', name: 'list_dir', input: { path: '.' } }] };
  const content = typeof result.content === 'string' ? result.content : (result.content as { text: string }[]).map((c) => c.text).join('');
  return { text: `The workspace holds: ${content.split('\n').join(', ')}. Done.` };
}

function workspaceWith(...files: string[]): string {
  const workspace = tempDir('ws');
  for (const f of files) writeFileSync(join(workspace, f), `${f}\n`);
  return workspace;
}

describe('nanobot run against an Anthropic Messages API server (ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL)', () => {
  it('streams the reply over SSE and runs the tool the model asked for', async () => {
    server = await startFakeAnthropicServer(script);
    const workspace = workspaceWith('apple.txt', 'pear.txt');
    const result = await runCli(['run', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s'), '--model', 'claude-test'], {
      env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url }),
    });
    expect(result.stderr).not.toMatch(/offline/);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`model: claude-test (anthropic at ${server.url})`);
    expect(result.stderr).toMatch(/▸ list_dir path=\./);
    expect(result.stdout).toContain('The workspace holds: apple.txt, pear.txt. Done.');
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(server.requests.map((r) => [r._path, r.stream, r.model])).toEqual([
      ['/v1/messages', true, 'claude-test'],
      ['/v1/messages', true, 'claude-test'],
    ]);
    expect(keyOf(first)).toBe('sk-ant-test');
    expect(first._headers['anthropic-version']).toBeTruthy();
    // The system prompt travels in `system`, tools as name + input_schema.
    expect(JSON.stringify(first.system)).toContain('list_dir');
    expect(first.messages.every((m: { role: string }) => m.role !== 'system')).toBe(true);
    expect(first.tools.find((t: { name: string }) => t.name === 'list_dir')).toMatchObject({ input_schema: { type: 'object' } });
    // The second request replays the tool_use and carries the real result as a tool_result block.
    const blocks = second.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []));
    expect(blocks).toContainEqual(expect.objectContaining({ type: 'tool_use', id: 'toolu_a1', name: 'list_dir', input: { path: '.' } }));
    expect(blocks).toContainEqual(expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_a1' }));
  });

  it('--json shows the streamed deltas; --no-stream uses whole JSON answers', async () => {
    server = await startFakeAnthropicServer(script);
    const workspace = workspaceWith('kiwi.txt');
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, NANOBOT_MODEL: 'claude-test' });
    const streamed = await runCli(['run', '--json', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s')], { env });
    expect(streamed.code).toBe(0);
    const events = streamed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; delta?: string; status?: string });
    expect(events[0]).toMatchObject({ type: 'cli_start', offline: false, provider: 'anthropic', model: 'claude-test' });
    expect(events.find((e) => e.type === 'tool_end')).toMatchObject({ status: 'ok' });
    const deltas = events.filter((e) => e.type === 'model_delta').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toContain('The workspace holds: kiwi.txt. Done.');
    expect(events.at(-1)).toMatchObject({ type: 'cli_end', stopReason: 'completed' });

    const before = server.requests.length;
    const whole = await runCli(['run', '--no-stream', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s')], { env });
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('The workspace holds: kiwi.txt. Done.');
    expect(server.requests.slice(before).map((r) => r.stream ?? false)).toEqual([false, false]);
  });

  it('an OPENAI_BASE_URL in the environment never reaches the Anthropic client; --base-url and the config file do', async () => {
    server = await startFakeAnthropicServer(script);
    const workspace = workspaceWith('fig.txt');
    // Port 9 on loopback: nothing listens, so a request sent there would fail the run.
    const both = cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', NANOBOT_MODEL: 'claude-test' });
    const viaEnv = await runCli(['run', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s')], { env: both });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toContain('fig.txt');

    const viaFlag = await runCli(['run', '-m', 'what is here?', '-w', workspace, '--sessions-dir', tempDir('s'), '--provider', 'anthropic', '--base-url', `${server.url}/v1`], {
      env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-flag' }),
    });
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toContain('fig.txt');
    expect(keyOf(server.requests.at(-1)!)).toBe('sk-flag');

    mkdirSync(join(workspace, '.nanobot'));
    writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify({ provider: 'anthropic', baseUrl: server.url, apiKey: 'sk-from-file', model: 'claude-from-config', sessionsDir: tempDir('s') }));
    const viaFile = await runCli(['run', '-m', 'what is here?', '-w', workspace], { env: cleanEnv() });
    expect(viaFile.code).toBe(0);
    expect(viaFile.stdout).toContain('fig.txt');
    expect(server.requests.at(-1)).toMatchObject({ model: 'claude-from-config' });
    expect(keyOf(server.requests.at(-1)!)).toBe('sk-from-file');
  });

  it('a refused key is one clear line on stderr and exit 1; the session keeps the question', async () => {
    server = await startFakeAnthropicServer(() => ({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }));
    const sessions = tempDir('s');
    const result = await runCli(['run', '-m', 'hello there', '-w', workspaceWith('a.txt'), '--sessions-dir', sessions, '-s', 'refused'], {
      env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-bad', ANTHROPIC_BASE_URL: server.url }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid x-api-key/);
    // Not retried: an authentication error is final.
    expect(server.requests).toHaveLength(1);
    const inspected = await runCli(['inspect', 'refused', '--json', '-w', tempDir('ws'), '--sessions-dir', sessions], { env: cleanEnv() });
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain('hello there');
  });

  it('chat: Ctrl-C mid-stream closes the request, keeps the streamed text and the history legal for the Messages API', async () => {
    server = await startFakeAnthropicServer((body) => {
      const last = body.messages.at(-1) as { content: unknown };
      return JSON.stringify(last.content).includes('long story') ? { text: 'Once upon a time there was a parser ', hang: true } : { text: 'Short answer.' };
    });
    const sessions = tempDir('sessions');
    const env = cleanEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, NANOBOT_MODEL: 'claude-test', NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: tempDir('ws') });
    const chat = new CliProcess(['chat', '--session', 'story'], { env });
    await chat.waitFor(/model: claude-test \(anthropic at /);
    let mark = chat.mark;
    chat.send('tell me a long story');
    await chat.waitFor(/Once upon a time there was a parser/, mark);
    chat.child.kill('SIGINT');
    await server.aborted;
    await chat.waitFor(/turn stopped; the history is kept/, mark);
    mark = chat.mark;
    chat.send('and a short one?');
    await chat.waitFor(/Short answer\./, mark);
    chat.child.stdin.end();
    expect((await chat.exited).code).toBe(0);

    const stored = parseSessionFile(readFileSync(join(sessions, sessionFileName('story')), 'utf8'));
    expect(checkLegality(stored.messages)).toEqual([]);
    expect(stored.messages.find((m) => m.role === 'assistant' && String(m.content).startsWith('Once upon a time'))).toMatchObject({ _interrupted: true });
    // The next request replays the interrupted text, with the roles still alternating as the API requires.
    const replayed = server.requests[1].messages as { role: string; content: unknown }[];
    expect(JSON.stringify(replayed)).toContain('Once upon a time there was a parser');
    expect(replayed.every((m, i) => i === 0 || m.role !== replayed[i - 1].role)).toBe(true);
  });
});
