import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { parseSessionFile, sessionFileName } from '@nanobot/session';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { requireScript } from './test-support/pty.js';
import { CLI_BIN, CliProcess, cleanEnv, tempDir } from './test-support/spawn-cli.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

let server: FakeOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('nanobot chat on a streaming OpenAI-compatible server', () => {
  it('Ctrl-C mid-stream closes the request, keeps the streamed text and the history legal', async () => {
    server = await startFakeOpenAiServer((body) => {
      const last = body.messages.at(-1) as { content: string };
      return String(last.content).includes('long story') ? { content: 'Once upon a time there was a parser ', hang: true } : { content: 'Short answer.' };
    });
    const sessions = tempDir('sessions');
    const env = cleanEnv({ OPENAI_BASE_URL: server.url, NANOBOT_MODEL: 'fake-model', NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: tempDir('ws') });
    const chat = new CliProcess(['chat', '--session', 'story'], { env });
    await chat.waitFor(/model: fake-model \(openai at /);
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
    const partial = stored.messages.find((m) => m.role === 'assistant' && String(m.content).startsWith('Once upon a time'));
    expect(partial).toMatchObject({ _interrupted: true });
    // The next request replayed the interrupted turn.
    const replayed = server.requests[1].messages.map((m: { content: unknown }) => String(m.content));
    expect(replayed.some((c: string) => c.startsWith('Once upon a time there was a parser'))).toBe(true);
  });
});

describe('nanobot chat in a pseudo-terminal (util-linux script)', () => {
  beforeAll(() => requireScript());

  it('Ctrl-C typed in the terminal stops the turn, a second one quits', async () => {
    const sessions = tempDir('sessions');
    server = await startToolFollowingServer();
    const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: tempDir('ws'), TERM: 'dumb', OPENAI_BASE_URL: server.url });
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} chat --session pty`;
    const { spawn } = await import('node:child_process');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env });
    let out = '';
    const waiters: (() => void)[] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (const w of waiters.splice(0)) w();
    });
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const waitFor = async (pattern: RegExp, from: number) => {
      while (!pattern.test(out.slice(from))) {
        if (child.exitCode !== null) throw new Error(`exited early:\n${out}`);
        await new Promise<void>((r) => waiters.push(r));
      }
    };
    await waitFor(/Ctrl-C stops a turn/, 0);
    let mark = out.length;
    child.stdin.write('run: sleep 30\r');
    await waitFor(/▸ exec/, mark);
    mark = out.length;
    child.stdin.write('\u0003');
    await waitFor(/turn stopped; the history is kept/, mark);
    mark = out.length;
    child.stdin.write('\u0003');
    await waitFor(/bye/, mark);
    expect(await exited).toBe(0);
    const stored = parseSessionFile(readFileSync(join(sessions, sessionFileName('pty')), 'utf8'));
    expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(checkLegality(stored.messages)).toEqual([]);
  });
});
