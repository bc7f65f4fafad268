import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { LEGACY_FAILURE_TEXTS, TOOL_INTERRUPTED_NOTE } from '@nanobot/schema';
import { parseSessionFile, sessionFileName } from '@nanobot/session';
import type { FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { CliProcess, cleanEnv, tempDir } from './test-support/spawn-cli.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

// The offline model never runs tools from chat, so these turns go to a local fake model that
// calls the real tools.
let model: FakeOpenAiServer;
beforeAll(async () => {
  model = await startToolFollowingServer();
});
afterAll(() => model.close());

function stored(sessionsDir: string, key: string) {
  return parseSessionFile(readFileSync(join(sessionsDir, sessionFileName(key)), 'utf8'));
}

describe('nanobot chat driven through stdin', () => {
  it('answers, runs tools, stops a turn on SIGINT with a legal history, and resumes with --session', async () => {
    const workspace = tempDir('ws');
    writeFileSync(join(workspace, 'plan.md'), '# Plan\nship it\n');
    const sessions = tempDir('sessions');
    const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: workspace, OPENAI_BASE_URL: model.url });

    const chat = new CliProcess(['chat', '--session', 'work'], { env });
    await chat.waitFor(/session work; resume with:\s+node \S*bin\.js chat --session work\n/);
    expect(chat.stderr).toMatch(/^model: gpt-5.4-mini \(openai at http:\/\/127\.0\.0\.1/m);

    // A plain answer, no tool.
    let mark = chat.mark;
    chat.send('hello, who are you?');
    await chat.waitFor(/You said: hello, who are you\?/, mark);

    // A tool run, shown at start and end.
    mark = chat.mark;
    chat.send('read plan.md');
    await chat.waitFor(/read_file returned:[\s\S]*1\|# Plan/, mark);
    expect(chat.stderr).toMatch(/▸ read_file path=plan\.md/);
    expect(chat.stderr).toMatch(/✓ read_file path=plan\.md ok, \d+ ms/);

    // A long tool call, interrupted mid-turn by Ctrl-C (SIGINT).
    mark = chat.mark;
    chat.send('run: sleep 30');
    await chat.waitFor(/▸ exec command="sleep 30"/, mark);
    chat.child.kill('SIGINT');
    await chat.waitFor(/⏹ turn stopped; the history is kept/, mark);
    expect(chat.stderr).toMatch(/⏹ exec command="sleep 30" interrupted after/);

    // The chat goes on after the interrupt.
    mark = chat.mark;
    chat.send('list files');
    await chat.waitFor(/list_dir returned:\s*plan\.md/, mark);
    chat.child.stdin.end();
    const first = await chat.exited;
    expect(first.code).toBe(0);

    const afterFirst = stored(sessions, 'work');
    expect(afterFirst.warnings).toEqual([]);
    expect(checkLegality(afterFirst.messages)).toEqual([]);
    // The interrupted call and the turn it ended are stored as failures, not as anyone's words.
    const interrupted = afterFirst.messages.findIndex((m) => m.role === 'tool' && m.name === 'exec');
    expect(afterFirst.messages.slice(interrupted, interrupted + 2)).toMatchObject([
      { role: 'tool', content: TOOL_INTERRUPTED_NOTE, _failure: { kind: 'interrupted' } },
      { role: 'assistant', content: '', _failure: { kind: 'interrupted' } },
    ]);
    const storedText = JSON.stringify(afterFirst.messages);
    for (const legacy of [LEGACY_FAILURE_TEXTS.toolInterrupted, LEGACY_FAILURE_TEXTS.turnInterrupted]) expect(storedText).not.toContain(legacy);
    const userTurns = afterFirst.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(userTurns).toEqual(['hello, who are you?', 'read plan.md', 'run: sleep 30', 'list files']);

    // Resume: the stored history is loaded and the new turn is appended to it.
    const resumed = new CliProcess(['chat', '--session', 'work'], { env });
    await resumed.waitFor(new RegExp(`resumed session work \\(${afterFirst.messages.length} messages\\) — last question: "list files"`));
    mark = resumed.mark;
    resumed.send('write notes/after.md: resumed fine');
    await resumed.waitFor(/write_file returned:\s*Successfully wrote/, mark);
    resumed.child.stdin.end();
    expect((await resumed.exited).code).toBe(0);
    const afterSecond = stored(sessions, 'work');
    expect(afterSecond.messages.slice(0, afterFirst.messages.length)).toEqual(afterFirst.messages);
    expect(afterSecond.messages.length).toBeGreaterThan(afterFirst.messages.length);
    expect(checkLegality(afterSecond.messages)).toEqual([]);
    expect(readFileSync(join(workspace, 'notes', 'after.md'), 'utf8')).toBe('resumed fine\n');
    expect(readdirSync(sessions).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  });

  it('a second Ctrl-C quits, saving the stopped turn', async () => {
    const sessions = tempDir('sessions');
    const chat = new CliProcess(['chat', '--session', 'twice', '-w', tempDir('ws')], { env: cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, OPENAI_BASE_URL: model.url }) });
    await chat.waitFor(/Ctrl-C stops a turn/);
    chat.send('run: sleep 30');
    await chat.waitFor(/▸ exec/);
    chat.child.kill('SIGINT');
    await chat.waitFor(/stopping the turn/);
    chat.child.kill('SIGINT');
    const result = await chat.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/session twice saved/);
    const history = stored(sessions, 'twice');
    expect(history.messages[0]).toMatchObject({ role: 'user', content: 'run: sleep 30' });
    expect(checkLegality(history.messages)).toEqual([]);
  });
});
