import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionFileName } from '@nanobot/session';
import { cleanEnv, runCli, tempDir, type CliResult } from './test-support/spawn-cli.js';

/** One clear line on stderr, nothing on stdout, exit status 2. */
function expectRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^nanobot: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.code).toBe(2);
}

function workspaceWithConfig(body: string | null): string {
  const workspace = tempDir('ws');
  mkdirSync(join(workspace, '.nanobot'));
  if (body === null) mkdirSync(join(workspace, '.nanobot', 'config.json'));
  else writeFileSync(join(workspace, '.nanobot', 'config.json'), body);
  return workspace;
}

describe('bad input: one clear line, a non-zero exit, nothing lost', () => {
  it('unknown flags, commands and misplaced options', async () => {
    expectRefusal(await runCli(['run', '--frobnicate']), /Unknown option '--frobnicate'/);
    expectRefusal(await runCli(['deploy']), /unknown command "deploy"/);
    expectRefusal(await runCli(['tools', '-m', 'hi']), /option --message is not valid for "nanobot tools"/);
    expectRefusal(await runCli(['run', '-m']), /argument missing/);
    expectRefusal(await runCli(['run']), /needs -m "<message>"/);
    expectRefusal(await runCli(['run', '--demo', '-m', 'x']), /either --demo or -m/);
    expectRefusal(await runCli(['chat', 'extra']), /unexpected argument "extra"/);
    expectRefusal(await runCli(['run', '-m', 'x', '--context-window', 'lots', '-w', tempDir('ws')]), /--context-window must be an integer/);
    expectRefusal(await runCli(['run', '-m', 'x', '--provider', 'gemeni', '-w', tempDir('ws')]), /--provider: Unknown provider "gemeni"/);
  });

  it('a missing workspace', async () => {
    const missing = join(tempDir('gone'), 'nope');
    expectRefusal(await runCli(['run', '-m', 'hi', '-w', missing]), new RegExp(`workspace ${missing} does not exist`));
    expectRefusal(await runCli(['chat'], { env: cleanEnv({ NANOBOT_WORKSPACE: missing }) }), /does not exist/);
    const file = join(tempDir('f'), 'plain.txt');
    writeFileSync(file, 'x');
    expectRefusal(await runCli(['tools', '-w', file]), /is not a directory/);
    expect(existsSync(missing)).toBe(false);
  });

  it('an unreadable, malformed or invalid config file', async () => {
    expectRefusal(await runCli(['tools', '-w', workspaceWithConfig(null)]), /cannot read config file .*config\.json: it is a directory/);
    const broken = workspaceWithConfig('{ "model": "x", ');
    expectRefusal(await runCli(['run', '-m', 'hi', '-w', broken]), /config file .*config\.json is not valid JSON/);
    expect(readFileSync(join(broken, '.nanobot', 'config.json'), 'utf8')).toBe('{ "model": "x", ');
    expectRefusal(await runCli(['tools', '-w', workspaceWithConfig('{"tools": {"exek": false}}')]), /is invalid: tools: Unrecognized key.*exek/);
    expectRefusal(await runCli(['tools', '-w', workspaceWithConfig('{"contextWindowTokens": "big"}')]), /is invalid: contextWindowTokens: /);
    expectRefusal(await runCli(['tools', '-w', workspaceWithConfig('{"mcpServers": {"git": {"command": "git", "agrs": []}}}')]), /mcpServers\.git.*agrs/);
    expectRefusal(await runCli(['tools', '--config', join(tempDir('c'), 'missing.json')]), /cannot read config file .*missing\.json: no such file/);
  });

  it('a corrupt session file is refused and left exactly as it was', async () => {
    const workspace = tempDir('ws');
    const sessions = tempDir('sessions');
    const file = join(sessions, sessionFileName('broken'));
    const text = [
      JSON.stringify({ _type: 'metadata', key: 'broken', created_at: '2026-01-01T00:00:00', updated_at: '2026-01-01T00:00:00', metadata: {}, last_consolidated: 0 }),
      JSON.stringify({ role: 'user', content: 'keep me' }),
      '{"role": "assistant", "content": "half a line',
      JSON.stringify({ role: 'assistant', content: 'and me' }),
      '',
    ].join('\n');
    writeFileSync(file, text);
    const env = cleanEnv({ NANOBOT_WORKSPACE: workspace, NANOBOT_SESSIONS_DIR: sessions });
    expectRefusal(await runCli(['chat', '--session', 'broken'], { env }), /session "broken" .* has 1 unreadable line, skipped \(line 3 is not valid JSON \(.*\)\); nothing was changed/);
    expectRefusal(await runCli(['run', '-m', 'hi', '--session', 'broken'], { env }), /unreadable line/);
    expectRefusal(await runCli(['inspect', 'broken'], { env }), /unreadable line/);
    expectRefusal(await runCli(['inspect', file], { env }), /unreadable line/);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(sessions).sort()).toEqual([sessionFileName('broken')]);
  });

  it('inspect without sessions, or of an unknown one', async () => {
    const env = cleanEnv({ NANOBOT_WORKSPACE: tempDir('ws'), NANOBOT_SESSIONS_DIR: tempDir('sessions') });
    expectRefusal(await runCli(['inspect'], { env }), /no stored sessions in/);
    expectRefusal(await runCli(['inspect', 'nope'], { env }), /no session named "nope"/);
    expectRefusal(await runCli(['inspect', '/no/such/file.jsonl'], { env }), /cannot read session file \/no\/such\/file\.jsonl: no such file/);
  });

  it('a provider named without a key, and sessions inside the workspace', async () => {
    const workspace = tempDir('ws');
    expectRefusal(await runCli(['run', '-m', 'hi', '--provider', 'anthropic', '-w', workspace, '--sessions-dir', tempDir('s')]), /^nanobot: Provider "anthropic" \(Anthropic\) needs an API key: set providers\.anthropic\.apiKey \(or the ANTHROPIC_API_KEY environment variable\)/);
    expectRefusal(await runCli(['run', '-m', 'hi', '-w', workspace, '--sessions-dir', join(workspace, 'sessions')]), /Refusing to store sessions inside the workspace/);
    expect(readdirSync(workspace)).toEqual([]);
  });

  it('a model named without any provider runs offline and says why', async () => {
    const result = await runCli(['run', '-m', 'hello', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env: cleanEnv({ NANOBOT_MODEL: 'gpt-9' }) });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/offline: no model provider is configured \(a model, "gpt-9", is named but no provider/);
  });

  it('--help documents every flag and env var, and help topics exist', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['--workspace', '--config', '--provider', '--model', '--base-url', '--offline', '--sessions-dir', '--context-window', '--max-iterations', '--no-stream', '--no-color', '--message', '--session', '--json', '--demo', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'NANOBOT_MODEL', 'NANOBOT_PROVIDER', 'NANOBOT_WORKSPACE', 'NANOBOT_CONFIG', 'NANOBOT_SESSIONS_DIR', 'NANOBOT_CONTEXT_WINDOW', 'NO_COLOR']) {
      expect(help.stdout).toContain(word);
    }
    for (const topic of ['run', 'chat', 'inspect', 'tools']) {
      const res = await runCli(['help', topic]);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^Usage: nanobot ${topic}`));
      expect((await runCli([topic, '--help'])).stdout).toBe(res.stdout);
    }
    expectRefusal(await runCli(['help', 'fly']), /no help for "fly"/);
    expect((await runCli(['--version'])).stdout).toMatch(/^nanobot \d+\.\d+\.\d+\n$/);
  });
});

describe('a session with a corrupt stored tool call', () => {
  it('warns on load, then runs the turn and saves the message', async () => {
    const sessions = tempDir('sessions');
    const file = join(sessions, sessionFileName('bad'));
    writeFileSync(
      file,
      [
        JSON.stringify({ _type: 'metadata', key: 'bad', created_at: '2026-01-01T00:00:00', updated_at: '2026-01-01T00:00:00', metadata: {}, last_consolidated: 0 }),
        JSON.stringify({ role: 'user', content: 'q' }),
        JSON.stringify({ role: 'assistant', content: null, tool_calls: [null, { id: 5 }, { function: 'x' }] }),
        '',
      ].join('\n'),
    );
    const env = cleanEnv({ NANOBOT_WORKSPACE: tempDir('ws'), NANOBOT_SESSIONS_DIR: sessions });
    const run = await runCli(['run', '-s', 'bad', '-m', 'hello'], { env });
    expect(run.stderr).toContain('session bad: message 2 has 3 malformed tool calls (of 3); kept on disk, not sent to the model');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('offline scripted model');
    expect(run.stderr).toMatch(/session bad saved/);
    const stored = readFileSync(file, 'utf8');
    expect(stored).toContain('"content":"hello"');
    expect(stored).toContain('"tool_calls":[null,{"id":5},{"function":"x"}]');
    const inspect = await runCli(['inspect', 'bad'], { env });
    expect(inspect.code).toBe(0);
    expect(inspect.stderr).toContain('malformed tool calls');
  });
});
