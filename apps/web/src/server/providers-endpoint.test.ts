import { afterEach, describe, expect, it } from 'vitest';
import { startTestDemo } from '../test-support/demo-fixture.js';

let demo: Awaited<ReturnType<typeof startTestDemo>> | null = null;
afterEach(async () => {
  await demo?.dispose();
  demo = null;
});

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

describe('GET /api/providers', () => {
  it('lists the registry as the server is configured, with the choice the demo made', async () => {
    demo = await startTestDemo({ env: { DEEPSEEK_API_KEY: 'k', NANOBOT_MODEL: 'deepseek-chat' } });
    const { status, body } = await getJson(`${demo.url}/api/providers`);
    expect(status).toBe(200);
    expect(body.providers).toHaveLength(46);
    expect(body.providers.find((p: { name: string }) => p.name === 'deepseek')).toMatchObject({ envKey: 'DEEPSEEK_API_KEY', configuredBy: 'DEEPSEEK_API_KEY', baseUrl: 'https://api.deepseek.com' });
    expect(body.chosen).toEqual({ provider: 'deepseek', model: 'deepseek-chat', rule: 'keyword' });
    const info = await getJson(`${demo.url}/api/info`);
    expect(info.body).toMatchObject({ offline: true, windowSource: 'set' });
  });

  it('only answers GET', async () => {
    demo = await startTestDemo({ env: {} });
    const res = await fetch(`${demo.url}/api/providers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(405);
  });
});
