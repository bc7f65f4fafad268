import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { parseSessionFile, sessionFileName } from '@nanobot/session';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

function storedMessages(sessionsDir: string) {
  const files = readdirSync(sessionsDir).filter((f) => f.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  return parseSessionFile(readFileSync(join(sessionsDir, files[0]), 'utf8'));
}

describe('nanobot run --demo (offline)', () => {
  it('runs list → read → write → exec on the real tools in its own temporary workspace and removes it', async () => {
    const sessions = tempDir('sessions');
    const tmp = tempDir('tmp');
    const result = await runCli(['run', '--demo'], { env: cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, TMPDIR: tmp }) });
    expect(result.code).toBe(0);
    // Plainly offline.
    expect(result.stderr).toMatch(/^offline: this is the offline demo; the built-in scripted model answers/m);
    // Each tool call has a start line and an ok end line, in order.
    const order = [...result.stderr.matchAll(/^ {2}([▸✓]) (\w+)/gm)].map((m) => `${m[1]}${m[2]}`);
    expect(order).toEqual(['▸list_dir', '✓list_dir', '▸read_file', '✓read_file', '▸write_file', '✓write_file', '▸exec', '✓exec']);
    // The answer is built from the tool results: the seeded README's real line count and heading.
    const workspace = /workspace: (\S+) \(a fresh temporary copy/.exec(result.stderr)![1];
    expect(workspace.startsWith(tmp)).toBe(true);
    expect(result.stdout).toContain('Offline demo finished');
    const lines = Number(/read_file README\.md: (\d+) lines, starting "# Demo project"/.exec(result.stdout)?.[1]);
    expect(lines).toBeGreaterThan(0);
    expect(result.stdout).toMatch(new RegExp(`exec wc -l: ${lines} README.md; \\d+ notes/nanobot-demo.md`));
    // The note was really written (shown before the workspace went), and the session was saved legal.
    expect(result.stderr).toMatch(/the note the demo wrote \(notes\/nanobot-demo\.md\):\n {2}# nanobot demo notes/);
    expect(result.stderr).toContain(`README.md has ${lines} lines`);
    const stored = storedMessages(sessions);
    expect(stored.warnings).toEqual([]);
    expect(stored.messages.filter((m) => m.role === 'tool').map((m) => m.name)).toEqual(['list_dir', 'read_file', 'write_file', 'exec']);
    expect(checkLegality(stored.messages)).toEqual([]);
    // Nothing is left behind in the temp directory.
    expect(existsSync(workspace)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('with no sessions dir named, leaves no directory at all in TMPDIR', async () => {
    const tmp = tempDir('tmp');
    const result = await runCli(['run', '--demo', '--json'], { env: cleanEnv({ TMPDIR: tmp }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"type":"tool_end"');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('refuses -w: the demo never writes into a real workspace', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'README.md'), '# Mine\none\ntwo\n');
    const result = await runCli(['run', '--demo', '-w', workspace, '--sessions-dir', tempDir('sessions')], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^nanobot: --demo always runs in its own temporary workspace/m);
    expect(readdirSync(workspace)).toEqual(['README.md']);
  });
});

describe('the offline model never runs what chat text says', () => {
  const dangerous = ['what does `touch pwned.txt` do?', 'demo', 'please show me the demo', 'run the tests please', 'run: touch pwned.txt', 'write pwned.txt: gotcha', 'list files'];
  for (const message of dangerous) {
    it(`run -m ${JSON.stringify(message)} answers in words and touches nothing`, async () => {
      const workspace = tempDir('ws');
      writeFileSync(join(workspace, 'keep.txt'), 'mine\n');
      const result = await runCli(['run', '--json', '-m', message, '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv() });
      expect(result.code).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; reply?: string });
      expect(events.filter((e) => e.type === 'tool_start')).toEqual([]);
      expect(events.at(-1)?.reply).toContain('never run tools or commands from chat');
      expect(readdirSync(workspace)).toEqual(['keep.txt']);
    });
  }

  it('nanobot chat with the offline model runs nothing either', async () => {
    const workspace = tempDir('ws');
    const result = await runCli(['chat', '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv(), input: 'what does `touch pwned.txt` do?\ndemo\nrun: touch pwned2.txt\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/▸/);
    expect(readdirSync(workspace)).toEqual([]);
  });
});

describe('nanobot run -m (offline)', () => {
  it('says it is offline and answers in words', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'hello.txt'), 'hi there\n');
    const result = await runCli(['run', '-m', 'read hello.txt', '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^offline: no model provider is configured/m);
    // The demo as this process was started (a hint that runs as printed).
    expect(result.stdout).toMatch(/run `node \S*bin\.js run --demo`/);
    expect(result.stdout).not.toContain('1|hi there');
  });

  it('--json prints events that parse, framed by cli_start and cli_end', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'a.txt'), 'x\n');
    const result = await runCli(['run', '--json', '-m', 'hello', '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({ type: 'cli_start', offline: true, workspace });
    expect(events.at(-1)).toMatchObject({ type: 'cli_end', stopReason: 'completed' });
    const types = events.map((e) => e.type);
    for (const t of ['turn_start', 'governance', 'model_start', 'model_delta', 'model_end', 'turn_end']) expect(types).toContain(t);
    expect(types.indexOf('model_start')).toBeLessThan(types.indexOf('model_end'));
  });

  it('--demo --json carries the tool events', async () => {
    const result = await runCli(['run', '--demo', '--json', '--sessions-dir', tempDir('s')], { env: cleanEnv({ TMPDIR: tempDir('tmp') }) });
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; [k: string]: unknown });
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool_start')).toBeLessThan(types.indexOf('tool_end'));
    expect(events.find((e) => e.type === 'tool_end')).toMatchObject({ name: 'list_dir', status: 'ok' });
  });
});

describe('nanobot chat commands', () => {
  it('/help lists /exit too, and a resumed one-message session says "1 message"', async () => {
    const sessions = tempDir('s');
    const workspace = tempDir('ws');
    const result = await runCli(['chat', '-s', 'h', '-w', workspace, '--sessions-dir', sessions], { env: cleanEnv(), input: '/help\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\/help — /m);
    expect(result.stdout).toMatch(/^\/exit — Quit/m);
    const once = await runCli(['run', '-m', 'hi', '-s', 'one', '-w', workspace, '--sessions-dir', sessions], { env: cleanEnv() });
    expect(once.code).toBe(0);
    const file = join(sessions, sessionFileName('one'));
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '' && (JSON.parse(l) as { role?: string }).role !== 'assistant');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const resumed = await runCli(['chat', '-s', 'one', '-w', workspace, '--sessions-dir', sessions], { env: cleanEnv(), input: '' });
    expect(resumed.stderr).toMatch(/resumed session one \(1 message\)/);
  });
});
