// The CLI in a real pseudo-terminal of 60, 80 and 120 columns (util-linux `script`), rendered by
// a headless xterm as a person would see it: no line is wider than the terminal (the terminal
// never has to wrap one), and Ctrl-D ends the chat on a line of its own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { PtyProcess, overflowing, renderTerminal, requireScript } from './test-support/pty.js';
import { writeGovernanceFixture } from './test-support/session-fixture.js';
import { CLI_BIN, cleanEnv, tempDir } from './test-support/spawn-cli.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

let model: FakeOpenAiServer;
const cli = (args: string): string => `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} ${args}`;

beforeAll(async () => {
  requireScript();
  model = await startToolFollowingServer();
});
afterAll(async () => {
  await model?.close();
});

function setup() {
  const workspace = tempDir('ws');
  writeFileSync(join(workspace, 'plan.md'), '# Plan\nship it\n');
  const sessions = tempDir('sessions');
  const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: workspace, OPENAI_BASE_URL: model.url, NO_COLOR: '' });
  return { workspace, sessions, env };
}

async function expectFits(pty: PtyProcess): Promise<string[]> {
  const lines = await renderTerminal(pty.output, pty.cols);
  expect(overflowing(lines), `lines wider than ${pty.cols} columns`).toEqual([]);
  return lines.map((l) => l.text);
}

describe.each([60, 80, 120])('at %i columns', (cols) => {
  it('chat: every line fits, and Ctrl-D ends on a new line with a hint', async () => {
    const { env } = setup();
    const chat = new PtyProcess(cli('chat'), { cols, env });
    await chat.waitFor(/\/help lists commands/);
    let mark = chat.mark;
    chat.type('hello there\r');
    await chat.waitFor(/You said: hello there/, mark);
    mark = chat.mark;
    chat.type('read plan.md\r');
    await chat.waitFor(/read_file returned:[\s\S]*› /, mark);
    chat.type('\u0004');
    expect(await chat.exited).toBe(0);
    const screen = await expectFits(chat);
    // The line after the last prompt is the goodbye, not "› session …".
    const saved = screen.findIndex((l) => /^session \S+ saved; resume with:/.test(l));
    expect(saved, screen.join('\n')).toBeGreaterThan(0);
    expect(screen.some((l) => /^› .*session/.test(l))).toBe(false);
    expect(screen.join('\n')).toMatch(/▸ read_file path=plan\.md/);
  }, 120_000);

  it('run: every line fits', async () => {
    const { env } = setup();
    const run = new PtyProcess(cli('run -m "list files"'), { cols, env });
    expect(await run.exited).toBe(0);
    const screen = await expectFits(run);
    expect(screen.join('\n')).toMatch(/list_dir returned:/);
    expect(screen.join('\n')).toMatch(/saved; continue with:/);
  }, 120_000);

  it('inspect and tools: laid out for the width', async () => {
    const { sessions, workspace, env } = setup();
    const file = join(tempDir('copy'), 'fixture.jsonl');
    writeGovernanceFixture(file);
    mkdirSync(sessions, { recursive: true });
    const inspect = new PtyProcess(cli(`inspect ${JSON.stringify(file)} --context-window 20000`), { cols, env, cwd: workspace });
    expect(await inspect.exited).toBe(0);
    const screen = await expectFits(inspect);
    for (const mark of ['STRIPPED', 'BACKFILLED', 'OFFLOADED', 'COMPACTED', 'SNIPPED']) expect(screen.join('\n')).toContain(mark);
    expect(screen.join('\n')).toMatch(/^budget {3}16,416 tokens for the request/m);
    const tools = new PtyProcess(cli('tools'), { cols, env, cwd: workspace });
    expect(await tools.exited).toBe(0);
    const listed = await expectFits(tools);
    expect(listed.join('\n')).toMatch(/^read_file +\S/m);
  }, 120_000);
});
