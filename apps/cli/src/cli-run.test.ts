import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { parseSessionFile } from '@nanobot/session';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

function storedMessages(sessionsDir: string) {
  const files = readdirSync(sessionsDir).filter((f) => f.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  return parseSessionFile(readFileSync(join(sessionsDir, files[0]), 'utf8'));
}

describe('nanobot run --demo (offline)', () => {
  it('runs list → read → write → exec on the real tools and reports what they returned', async () => {
    const sessions = tempDir('sessions');
    const result = await runCli(['run', '--demo'], { env: cleanEnv({ NANOBOT_SESSIONS_DIR: sessions }) });
    expect(result.code).toBe(0);
    // Plainly offline.
    expect(result.stderr).toMatch(/^offline: this is the offline demo; the built-in scripted model answers/m);
    // Each tool call has a start line and an ok end line, in order.
    const order = [...result.stderr.matchAll(/^ {2}([▸✓]) (\w+)/gm)].map((m) => `${m[1]}${m[2]}`);
    expect(order).toEqual(['▸list_dir', '✓list_dir', '▸read_file', '✓read_file', '▸write_file', '✓write_file', '▸exec', '✓exec']);
    // The answer is built from the tool results: the seeded README's real line count and heading.
    const workspace = /workspace: (\S+) \(a fresh temporary copy/.exec(result.stderr)![1];
    const readme = readFileSync(join(workspace, 'README.md'), 'utf8');
    const lines = readme.split('\n').length - 1;
    expect(result.stdout).toContain('Offline demo finished');
    expect(result.stdout).toContain(`read_file README.md: ${lines} lines, starting "# Demo project"`);
    expect(result.stdout).toMatch(new RegExp(`exec wc -l: ${lines} README.md; \\d+ notes/nanobot-demo.md`));
    // The note was really written, and the session was saved legal.
    const note = readFileSync(join(workspace, 'notes', 'nanobot-demo.md'), 'utf8');
    expect(note).toContain('README.md has');
    const stored = storedMessages(sessions);
    expect(stored.warnings).toEqual([]);
    expect(stored.messages.filter((m) => m.role === 'tool').map((m) => m.name)).toEqual(['list_dir', 'read_file', 'write_file', 'exec']);
    expect(checkLegality(stored.messages)).toEqual([]);
  });

  it('uses a given workspace and its files', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'README.md'), '# Mine\none\ntwo\n');
    const sessions = tempDir('sessions');
    const result = await runCli(['run', '--demo', '-w', workspace, '--sessions-dir', sessions], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('read_file README.md: 3 lines, starting "# Mine"');
    expect(existsSync(join(workspace, 'notes', 'nanobot-demo.md'))).toBe(true);
  });
});

describe('nanobot run -m (offline)', () => {
  it('says it is offline and still runs the real tool', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'hello.txt'), 'hi there\n');
    const result = await runCli(['run', '-m', 'read hello.txt', '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^offline: no model provider is configured/m);
    expect(result.stdout).toContain('1|hi there');
  });

  it('--json prints events that parse, framed by cli_start and cli_end', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'a.txt'), 'x\n');
    const result = await runCli(['run', '--json', '-m', 'list files', '-w', workspace, '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({ type: 'cli_start', offline: true, workspace });
    expect(events.at(-1)).toMatchObject({ type: 'cli_end', stopReason: 'completed' });
    const types = events.map((e) => e.type);
    for (const t of ['turn_start', 'governance', 'model_start', 'model_delta', 'model_end', 'tool_start', 'tool_end', 'turn_end']) expect(types).toContain(t);
    const toolEnd = events.find((e) => e.type === 'tool_end')!;
    expect(toolEnd).toMatchObject({ name: 'list_dir', status: 'ok', content: 'a.txt' });
    expect(types.indexOf('tool_start')).toBeLessThan(types.indexOf('tool_end'));
    expect(String(events.at(-1)?.reply)).toContain('a.txt');
  });
});
