import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile, sessionFileName } from '@nanobot/session';
import type { FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { requireScript } from './test-support/pty.js';
import { CLI_BIN, cleanEnv, tempDir } from './test-support/spawn-cli.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

beforeAll(() => requireScript());
let server: FakeOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Occurrences of `text` in `out` that are not preceded by the `› ` scrollback mark or `prefix`. */
function strayEchoes(out: string, text: string, allowed: string[]): number {
  let count = 0;
  for (let i = out.indexOf(text); i >= 0; i = out.indexOf(text, i + 1)) {
    const before = out.slice(Math.max(0, i - 12), i);
    if (!allowed.some((a) => before.endsWith(a))) count += 1;
  }
  return count;
}

describe('nanobot chat start-up and typing in a pseudo-terminal (util-linux script)', () => {
  it('shows MCP start-up progress, keeps typed-ahead input, and puts text typed during a turn in the scrollback, not on the spinner line', async () => {
    server = await startToolFollowingServer();
    const workspace = tempDir('ws');
    const sessions = tempDir('sessions');
    const tiny = resolve(import.meta.dirname, 'test-support', 'tiny-mcp-server.mjs');
    mkdirSync(join(workspace, '.nanobot'));
    const slow = { command: process.execPath, args: [tiny], env: { TINY_DELAY_MS: '1500' } };
    writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify({ mcpServers: { one: slow, two: slow } }));
    const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: workspace, TERM: 'dumb', OPENAI_BASE_URL: server.url });
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} chat --session pty-typing`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env });
    let out = '';
    const waiters: (() => void)[] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (const w of waiters.splice(0)) w();
    });
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const waitFor = async (pattern: RegExp, from = 0) => {
      while (!pattern.test(out.slice(from))) {
        if (child.exitCode !== null) throw new Error(`exited early:\n${out}`);
        await new Promise<void>((r) => waiters.push(r));
      }
    };

    // Typed before anything is on screen: kept, and answered once the agent is up.
    child.stdin.write('hello early\r');
    await waitFor(/connecting 2 MCP servers at once: one, two/);
    await waitFor(/MCP: 2 of 2 servers ready, 2 tools/);
    await waitFor(/You said: hello early/);
    expect(out.indexOf('connecting 2 MCP servers')).toBeLessThan(out.indexOf('MCP: 2 of 2 servers ready'));

    // Typed while a tool runs: not echoed onto the spinner line, shown as a `› …` line, and run next.
    let mark = out.length;
    child.stdin.write('run: sleep 2\r');
    await waitFor(/▸ exec/, mark);
    mark = out.length;
    child.stdin.write('second line\r');
    await waitFor(/› second line/, mark);
    await waitFor(/You said: second line/, mark);
    child.stdin.write('/exit\r');
    expect(await exited).toBe(0);

    expect(strayEchoes(out, 'second line', ['› ', 'You said: '])).toBe(0);
    // Before the CLI reads its input, the terminal itself echoes what is typed; after that, never.
    const afterStart = out.slice(out.indexOf('model: '));
    expect(strayEchoes(afterStart, 'hello early', ['› ', 'You said: '])).toBe(0);
    // A cleared spinner line (`\r\x1b[2K`) is a line start too: the echo may follow the MCP progress line.
    expect(out).toMatch(/(^|\n|\u001b\[2K)› hello early\r?\n/);
    const stored = parseSessionFile(readFileSync(join(sessions, sessionFileName('pty-typing')), 'utf8'));
    const users = stored.messages.filter((m) => m.role === 'user').map((m) => String(m.content).split('\n')[0]);
    expect(users).toEqual(['hello early', 'run: sleep 2', 'second line']);
  }, 90_000);
});
