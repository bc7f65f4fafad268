// A failed model request is reported once: as the turn's error on stderr, not again as the reply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from './test-support/recording-server.js';
import { CliProcess, cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

let server: RecordingServer;
const MESSAGE = 'The model `gpt-nope` does not exist or you do not have access to it.';

beforeAll(async () => {
  server = await startRecordingServer({
    accepts: () => true,
    notFoundBody: () => ({}),
    respond: (res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: MESSAGE, type: 'invalid_request_error', code: 'model_not_found' } }));
    },
  });
});
afterAll(async () => {
  await server?.close();
});

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('an error is printed once', () => {
  it('run: on stderr, not repeated as the reply on stdout; exit 1', async () => {
    const env = cleanEnv({ OPENAI_BASE_URL: `${server.origin}/v1`, NANOBOT_MODEL: 'gpt-nope' });
    const result = await runCli(['run', '-m', 'hello', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env });
    expect(result.code).toBe(1);
    expect(count(result.stdout + result.stderr, MESSAGE)).toBe(1);
    expect(result.stderr).toMatch(/✗ the turn failed: .*does not exist/);
    expect(result.stdout).toBe('');
  }, 60_000);

  it('chat: once per failed turn', async () => {
    const env = cleanEnv({ OPENAI_BASE_URL: `${server.origin}/v1`, NANOBOT_MODEL: 'gpt-nope' });
    const chat = new CliProcess(['chat', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env });
    await chat.waitFor(/\/help lists commands/);
    chat.send('hello');
    await chat.waitFor(/✗ the turn failed/);
    chat.child.stdin.end();
    const done = await chat.exited;
    expect(count(done.stdout + done.stderr, MESSAGE)).toBe(1);
  }, 60_000);
});
