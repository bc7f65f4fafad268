import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { FallbackProvider } from '@nanobot/providers';
import { ScriptedProvider, scriptedError } from '@nanobot/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, SessionView, StreamEvent } from '../shared/protocol.js';
import { openSse, postJson, rawRequest, startTestDemo } from '../test-support/demo-fixture.js';
import { AgentHost } from './agent-host.js';
import { createOfflineModel } from './offline-model.js';
import { startWebServer } from './web-server.js';

type Demo = Awaited<ReturnType<typeof startTestDemo>>;

let demo: Demo;
let key: string;

const api = (path: string): string => `${demo.url}${path}`;
const sessionUrl = (k: string, tail = ''): string => api(`/api/sessions/${encodeURIComponent(k)}${tail}`);

async function view(k: string): Promise<SessionView> {
  const res = await rawRequest(sessionUrl(k));
  expect(res.status).toBe(200);
  return res.json as SessionView;
}

function errorCode(json: unknown): string {
  return (json as ErrorBody).error.code;
}

beforeAll(async () => {
  demo = await startTestDemo();
  const res = await postJson(api('/api/sessions'), {});
  expect(res.status).toBe(201);
  key = (res.json as { key: string }).key;
});

afterAll(async () => {
  await demo?.dispose();
});

describe('listening', () => {
  it('listens on 127.0.0.1 by default', async () => {
    const host = new AgentHost({ workspace: demo.workspace, sessionsDir: `${demo.root}/other-sessions`, provider: createOfflineModel({ deltaDelayMs: 0 }), exec: false, web: false });
    const server = await startWebServer({ host, clientDir: `${demo.root}/no-client`, info: { model: 'm', provider: 'p', offline: true, contextWindowTokens: 0 }, port: 0 });
    try {
      expect(server.server.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // Not built: the page route says so clearly instead of hanging or crashing.
      const page = await rawRequest(`${server.url}/`);
      expect(page.status).toBe(500);
      expect(errorCode(page.json)).toBe('CLIENT_NOT_BUILT');
    } finally {
      await server.close();
      await host.close();
    }
  });

  it('the demo itself is bound to loopback', () => {
    expect(demo.server.address()).toMatchObject({ address: '127.0.0.1' });
  });
});

describe('a full turn over SSE', () => {
  it('streams user echo, tool runs, inspector snapshots, deltas and turn_end in order', async () => {
    const sse = await openSse(sessionUrl(key, '/events'));
    await sse.waitFor((e) => e.type === 'snapshot');
    const sent = await postJson(sessionUrl(key, '/messages'), { text: 'What is in the workspace?' });
    expect(sent.status).toBe(202);
    const end = await sse.waitFor((e) => e.type === 'turn_end');
    sse.hangUp();
    expect(end).toMatchObject({ type: 'turn_end', stopReason: 'completed' });
    const types = sse.events.map((e) => e.type);
    expect(types[0]).toBe('snapshot');
    expect(types.indexOf('user')).toBeLessThan(types.indexOf('turn_start'));
    expect(types.indexOf('inspector')).toBeLessThan(types.indexOf('tool_start'));
    const tools = sse.events.filter((e): e is Extract<StreamEvent, { type: 'tool_end' }> => e.type === 'tool_end');
    expect(tools.map((t) => [t.name, t.status])).toEqual([
      ['list_dir', 'ok'],
      ['read_file', 'ok'],
    ]);
    expect(sse.events.filter((e) => e.type === 'inspector')).toHaveLength(3);
    // Each request's snapshot comes after turn_start (the page resets its view there) and after
    // the previous request's tool runs, numbered by its iteration.
    const inspectorAt = types.flatMap((t, i) => (t === 'inspector' ? [i] : []));
    expect(inspectorAt[0]).toBeGreaterThan(types.indexOf('turn_start'));
    expect(inspectorAt[1]).toBeGreaterThan(types.indexOf('tool_end'));
    expect(inspectorAt[2]).toBeGreaterThan(types.lastIndexOf('tool_end'));
    expect(sse.events.flatMap((e) => (e.type === 'inspector' ? [e.snapshot.iteration] : []))).toEqual([0, 1, 2]);
    const streamed = sse.events.filter((e): e is Extract<StreamEvent, { type: 'delta' }> => e.type === 'delta').map((e) => e.text).join('');
    expect(streamed).toContain('Here is what I found.');
    expect(streamed.length).toBeGreaterThan(40);
  });
});

describe('a client that disconnects mid-stream', () => {
  it('does not stop the server; the turn finishes, is saved, and the next request works', async () => {
    const before = (await view(key)).items.length;
    const sse = await openSse(sessionUrl(key, '/events'));
    await sse.waitFor((e) => e.type === 'snapshot');
    expect((await postJson(sessionUrl(key, '/messages'), { text: 'Show me what is here' })).status).toBe(202);
    await sse.waitFor((e) => e.type === 'delta' || e.type === 'tool_start');
    sse.hangUp();
    await demo.host.idle();

    const info = await rawRequest(api('/api/info'));
    expect(info.status).toBe(200);
    const after = await view(key);
    expect(after.running).toBe(false);
    const added = after.items.slice(before);
    expect(added[0]).toEqual({ kind: 'user', text: 'Show me what is here' });
    expect(added.filter((i) => i.kind === 'tool').map((i) => (i as { status: string }).status)).toEqual(['ok', 'ok']);
    expect(added[added.length - 1]).toMatchObject({ kind: 'assistant' });
    expect((added[added.length - 1] as { text: string }).text).toContain('Here is what I found.');

    const again = await openSse(sessionUrl(key, '/events'));
    const snapshot = (await again.waitFor((e) => e.type === 'snapshot')) as Extract<StreamEvent, { type: 'snapshot' }>;
    expect(snapshot.session.items).toEqual(after.items);
    expect((await postJson(sessionUrl(key, '/messages'), { text: 'read notes.md' })).status).toBe(202);
    const end = await again.waitFor((e) => e.type === 'turn_end');
    again.hangUp();
    expect(end).toMatchObject({ stopReason: 'completed' });
    expect((await view(key)).items.slice(after.items.length).map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(demo.errors).toEqual([]);
  });

  it('survives a client that hangs up halfway through a request body, and nothing is sent', async () => {
    const before = await view(key);
    const url = new URL(sessionUrl(key, '/messages'));
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"text": "half`);
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    expect((await rawRequest(api('/api/info'))).status).toBe(200);
    await demo.host.idle();
    expect(await view(key)).toEqual(before);
  });
});

describe('malformed requests get a clear 4xx JSON error and lose nothing', () => {
  const cases: { name: string; status: number; code: string; send: () => Promise<{ status: number; json: unknown; headers: Record<string, unknown> }> }[] = [
    { name: 'invalid JSON', status: 400, code: 'INVALID_JSON', send: () => rawRequest(sessionUrl(key, '/messages'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"text": "hi"' }) },
    { name: 'a JSON array', status: 400, code: 'INVALID_BODY', send: () => rawRequest(sessionUrl(key, '/messages'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '["hi"]' }) },
    { name: 'no JSON content type (a cross-site form post)', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', send: () => rawRequest(sessionUrl(key, '/messages'), { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{"text":"hi"}' }) },
    { name: 'text missing', status: 400, code: 'INVALID_TEXT', send: () => postJson(sessionUrl(key, '/messages'), { message: 'hi' }) },
    { name: 'text not a string', status: 400, code: 'INVALID_TEXT', send: () => postJson(sessionUrl(key, '/messages'), { text: 42 }) },
    { name: 'blank text', status: 400, code: 'EMPTY_TEXT', send: () => postJson(sessionUrl(key, '/messages'), { text: '  \n ' }) },
    { name: 'text too long', status: 413, code: 'TEXT_TOO_LONG', send: () => postJson(sessionUrl(key, '/messages'), { text: 'x'.repeat(20_001) }) },
    { name: 'body too large', status: 413, code: 'BODY_TOO_LARGE', send: () => postJson(sessionUrl(key, '/messages'), { text: 'hi', pad: 'y'.repeat(70_000) }) },
    { name: 'an invalid session key', status: 400, code: 'INVALID_SESSION_KEY', send: () => postJson(api('/api/sessions/..%2Fescape/messages'), { text: 'hi' }) },
    { name: 'bad percent-encoding in the key', status: 400, code: 'INVALID_SESSION_KEY', send: () => rawRequest(api('/api/sessions/%E0%A4%A/messages'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"text":"hi"}' }) },
    { name: 'an unknown API route', status: 404, code: 'NOT_FOUND', send: () => rawRequest(api('/api/nope')) },
    { name: 'an unknown artifact', status: 404, code: 'ARTIFACT_NOT_FOUND', send: () => rawRequest(api(`/api/artifacts/${'0'.repeat(24)}`)) },
    { name: 'the wrong method', status: 405, code: 'METHOD_NOT_ALLOWED', send: () => rawRequest(sessionUrl(key, '/messages')) },
    { name: 'a foreign Host header (DNS rebinding)', status: 421, code: 'WRONG_HOST', send: () => rawRequest(api('/api/sessions'), { headers: { Host: 'attacker.example:80' } }) },
    { name: 'a cross-origin POST', status: 403, code: 'CROSS_ORIGIN', send: () => rawRequest(sessionUrl(key, '/messages'), { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'http://attacker.example' }, body: '{"text":"hi"}' }) },
    { name: 'a path escaping the page directory', status: 404, code: 'NOT_FOUND', send: () => rawRequest(api('/..%2f..%2fpackage.json')) },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const before = await view(key);
      const res = await c.send();
      expect(res.status).toBe(c.status);
      expect(errorCode(res.json)).toBe(c.code);
      expect((res.json as ErrorBody).error.message.length).toBeGreaterThan(5);
      if (c.status === 405) expect(res.headers.allow).toBe('POST');
      await demo.host.idle();
      expect(await view(key)).toEqual(before);
    });
  }

  it('still answers normally after all of them', async () => {
    const before = (await view(key)).items.length;
    const sse = await openSse(sessionUrl(key, '/events'));
    await sse.waitFor((e) => e.type === 'snapshot');
    expect((await postJson(sessionUrl(key, '/messages'), { text: 'read README.md' })).status).toBe(202);
    await sse.waitFor((e) => e.type === 'turn_end');
    sse.hangUp();
    const after = await view(key);
    expect(after.items.slice(before).map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(demo.errors).toEqual([]);
  });
});

describe('sessions and artifacts', () => {
  it('lists sessions and serves an offloaded tool result by the id the inspector links', async () => {
    const created = await postJson(api('/api/sessions'), { title: 'Logs' });
    const logs = (created.json as { key: string }).key;
    const sse = await openSse(sessionUrl(logs, '/events'));
    await sse.waitFor((e) => e.type === 'snapshot');
    await postJson(sessionUrl(logs, '/messages'), { text: 'Check the logs' });
    await sse.waitFor((e) => e.type === 'turn_end');
    sse.hangUp();
    const snapshots = sse.events.filter((e): e is Extract<StreamEvent, { type: 'inspector' }> => e.type === 'inspector');
    const marks = snapshots.flatMap((s) => s.snapshot.timeline.flatMap((r) => (r.kind === 'message' ? r.marks : [])));
    const offloaded = marks.find((m) => m.action === 'offloaded');
    expect(offloaded?.artifactUrl).toMatch(/^\/api\/artifacts\/[a-f0-9]{24}$/);
    const artifact = await rawRequest(api(offloaded!.artifactUrl!));
    expect(artifact.status).toBe(200);
    expect(artifact.headers['content-type']).toContain('text/plain');
    expect(artifact.body).toContain('ERROR step 0');
    expect(artifact.body.length).toBeGreaterThan(16_000);
    // Offloads live beside the sessions, so a search of the workspace never meets the copy.
    expect(existsSync(join(demo.workspace, '.nanobot', 'tool-results'))).toBe(false);

    const list = await rawRequest(api('/api/sessions'));
    const titles = (list.json as { sessions: { key: string; title: string }[] }).sessions;
    expect(titles).toContainEqual(expect.objectContaining({ key: logs, title: 'Logs' }));
    expect(titles.map((s) => s.key)).toContain(key);
  });
});

describe('stopping a turn', () => {
  it('POST /stop aborts a running turn; the session stays usable', async () => {
    let calls = 0;
    // Waits for the abort on the first request, so the stop always lands mid-turn.
    const provider = new ScriptedProvider(async (request) => {
      calls += 1;
      if (calls === 1) await new Promise((resolve) => request.signal?.addEventListener('abort', resolve, { once: true }));
      return 'fine again';
    });
    const own = await startTestDemo({ provider });
    try {
      const created = await postJson(`${own.url}/api/sessions`, {});
      const k = (created.json as { key: string }).key;
      const url = (tail: string): string => `${own.url}/api/sessions/${encodeURIComponent(k)}${tail}`;
      const sse = await openSse(url('/events'));
      await sse.waitFor((e) => e.type === 'snapshot');
      await postJson(url('/messages'), { text: 'take your time' });
      await sse.waitFor((e) => e.type === 'turn_start');
      const stop = await postJson(url('/stop'), {});
      expect(stop.status).toBe(202);
      expect(stop.json).toEqual({ stopping: true, stopped: 1 });
      const end = await sse.waitFor((e) => e.type === 'turn_end');
      expect(end).toMatchObject({ stopReason: 'aborted' });
      // The turn's end says it once (the page draws one line); no "Stopped 1 task(s)." chat reply.
      expect(sse.events.filter((e) => e.type === 'notice')).toEqual([]);
      await own.host.idle();
      await postJson(url('/messages'), { text: 'again' });
      const second = await sse.waitFor((e) => e.type === 'turn_end' && e !== end);
      sse.hangUp();
      expect(second).toMatchObject({ stopReason: 'completed', finalContent: 'fine again' });
      const items = ((await rawRequest(url(''))).json as SessionView).items;
      expect(items[0]).toEqual({ kind: 'user', text: 'take your time' });
      expect(items.slice(-2)).toEqual([{ kind: 'user', text: 'again' }, { kind: 'assistant', text: 'fine again' }]);
      expect(own.errors).toEqual([]);
    } finally {
      await own.dispose();
    }
  });
});

describe('fallbacks and the bill', () => {
  it('a fallback shows as a notice and turn_end carries the turn’s tokens and cost', async () => {
    const primary = new ScriptedProvider([{ error: scriptedError('server', 'down', { status: 503 }) }], { name: 'primary', model: 'gpt-4o' });
    const backup = new ScriptedProvider([{ content: 'from the backup', usage: { inputTokens: 2_000, outputTokens: 100, cachedTokens: 1_000 } }], { name: 'backup', model: 'gpt-4o' });
    const own = await startTestDemo({ provider: new FallbackProvider([primary, backup]) });
    try {
      const created = await postJson(`${own.url}/api/sessions`, {});
      const k = (created.json as { key: string }).key;
      const sse = await openSse(`${own.url}/api/sessions/${encodeURIComponent(k)}/events`);
      await sse.waitFor((e) => e.type === 'snapshot');
      await postJson(`${own.url}/api/sessions/${encodeURIComponent(k)}/messages`, { text: 'hello' });
      const notice = await sse.waitFor((e) => e.type === 'notice');
      expect(notice).toEqual({ type: 'notice', text: 'primary:gpt-4o failed (server (503)); trying backup:gpt-4o' });
      const end = await sse.waitFor((e) => e.type === 'turn_end');
      sse.hangUp();
      expect(end).toMatchObject({ stopReason: 'completed', bill: { inputTokens: 2_000, cachedTokens: 1_000, outputTokens: 100 } });
      const cost = (end as Extract<StreamEvent, { type: 'turn_end' }>).bill?.cost;
      expect(cost).toBeCloseTo((1_000 * 2.5 + 1_000 * 1.25 + 100 * 10) / 1e6, 12);
      // The governor's estimate of that request next to what was billed (cold: calibrated = estimate).
      const last = (end as Extract<StreamEvent, { type: 'turn_end' }>).bill?.lastRequest;
      expect(last?.actual).toBe(2_000);
      expect(last?.estimated).toBeGreaterThan(0);
      expect(last?.calibrated).toBe(last?.estimated);
      // The inspector counts as the governor did for gpt-4o: o200k, the bar adding up to its estimate.
      const inspector = (await sse.waitFor((e) => e.type === 'inspector')) as Extract<StreamEvent, { type: 'inspector' }>;
      expect(inspector.snapshot.budget.tokenizer).toBe('o200k_base');
      expect(Math.abs(inspector.snapshot.budget.used - last!.estimated)).toBeLessThanOrEqual(3);
    } finally {
      await own.dispose();
    }
  });
});
