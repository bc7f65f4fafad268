import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

let server: FakeOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('background subagents in nanobot run', () => {
  it('waits for a background spawn and shows its result before exiting', async () => {
    server = await startFakeOpenAiServer((body) => {
      const messages = body.messages as { role: string; content: unknown }[];
      const text = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
      const last = messages[messages.length - 1];
      if (messages.some((m) => m.role === 'user' && text(m).startsWith('count the files'))) return { content: 'there are 3 files' };
      if (messages.some((m) => text(m).includes('there are 3 files'))) return { content: 'Background result: there are 3 files.' };
      if (last.role === 'tool') return { content: 'Started it in the background.' };
      return { toolCalls: [{ id: 's1', name: 'spawn', arguments: JSON.stringify({ task: 'count the files' }) }] };
    });
    const env = cleanEnv({ OPENAI_BASE_URL: server.url, NANOBOT_MODEL: 'fake-model' });
    const result = await runCli(['run', '-m', 'count in the background', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Background result: there are 3 files.');
    expect(result.stdout.match(/Background result: there are 3 files\./g)).toHaveLength(1);
  });
});
