import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '@nanobot/tools-core';
import { ExecSessionManager } from './exec-session-manager.js';
import { withoutRcFiles } from './exec-session.js';
import { createListExecSessionsTool } from './list-exec-sessions-tool.js';
import { NoSandbox } from '../sandbox/no-sandbox.js';
import { selectSandbox } from '../sandbox/select-sandbox.js';
import { assertBubblewrap, EXEC_MODES, eventually, execTool, isGone, killMarked, processesWith, uniqueSleep, type ExecMode } from '../test-support/exec-harness.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { createWriteStdinTool } from './write-stdin-tool.js';

/** A dev-server-like program: boots, says it listens, echoes each stdin line, says bye at EOF. */
const SERVER = `
process.stdout.write('booting\\n');
setTimeout(() => console.log('listening on 3000'), 300);
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => console.log('echo: ' + line));
rl.on('close', () => { console.log('bye'); process.exit(0); });
`;

let ws: TempWorkspace;
let manager: ExecSessionManager;
/** Every manager a test made: all are emptied after it, whatever it asserted. */
const managers: ExecSessionManager[] = [];
/** Markers (`uniqueSleep`) of the test's commands: what carries one is killed after it too. */
const markers: string[] = [];
function marked(): string {
  const marker = uniqueSleep();
  markers.push(marker);
  return marker;
}
function newManager(options?: ConstructorParameters<typeof ExecSessionManager>[0]): ExecSessionManager {
  const made = new ExecSessionManager(options);
  managers.push(made);
  return made;
}
beforeEach(async () => {
  ws = await createTempWorkspace();
  await ws.write('server.cjs', SERVER);
  manager = newManager();
});
afterEach(async () => {
  for (const made of managers.splice(0)) made.killAll();
  for (const marker of markers.splice(0)) await killMarked(marker);
  await ws.dispose();
});

function tools(mode: ExecMode, options: Parameters<typeof execTool>[1] = {}): { exec: Tool<any>; write: Tool<any>; list: Tool<any> } {
  return { exec: execTool(mode, { sessions: manager, ...options }), write: createWriteStdinTool(manager), list: createListExecSessionsTool(manager) };
}

function sessionIdOf(text: string): string {
  const match = /Process running\. session_id: ([0-9a-f]{12})/.exec(text);
  if (!match) throw new Error(`no session id in: ${text}`);
  return match[1];
}

describe.each(EXEC_MODES)('background exec sessions (sandbox: %s)', (mode) => {
  it('a dev server is started, polled, fed input, waited on and terminated', { timeout: 60_000 }, async () => {
    const t = tools(mode);
    const ctx = ws.ctx({ sessionKey: 'cli:direct' });
    const started = await call(t.exec, { command: 'node server.cjs', yield_time_ms: 50 }, ctx);
    expect(started.isError).toBe(false);
    const id = sessionIdOf(started.text);
    expect(started.text).toMatch(/\nElapsed: \d+\.\ds$/);

    const listening = await call(t.write, { session_id: id, wait_for: 'listening on', wait_timeout_ms: 30_000 }, ctx);
    expect(listening.isError).toBe(false);
    expect(listening.text).toContain('listening on 3000');
    expect(listening.text).toContain(`Process running. session_id: ${id}`);
    expect(listening.text).not.toContain('Wait target not observed');

    const echoed = await call(t.write, { session_id: id, chars: 'hello\n', wait_for: 'echo: hello', wait_timeout_ms: 30_000 }, ctx);
    expect(echoed.text).toMatch(/^echo: hello\n/);

    // A poll returns only what is new since the last one.
    const quiet = await call(t.write, { session_id: id, chars: '', yield_time_ms: 0 }, ctx);
    expect(quiet.text).toMatch(new RegExp(`^Process running\\. session_id: ${id}\\nElapsed: `));

    const missed = await call(t.write, { session_id: id, wait_for: 'never printed', wait_timeout_ms: 300 }, ctx);
    expect(missed.text).toContain("Wait target not observed: 'never printed'");

    const listed = await call(t.list, {}, ctx);
    expect(listed.text).toMatch(new RegExp(`^${id} \\| running \\| elapsed=\\d+\\.\\ds \\| idle=\\d+\\.\\ds \\| remaining=\\d+\\.\\ds \\| cwd=${ws.root} \\| node server\\.cjs$`));
    const [info] = manager.list('cli:direct');
    expect(info.pid).toBeTypeOf('number');

    const ended = await call(t.write, { session_id: id, terminate: true }, ctx);
    expect(ended.text).toContain('Session terminated.');
    expect(ended.text).toMatch(/Exit code: -9\nElapsed: /);
    expect(await eventually(() => isGone(info.pid as number))).toBe(true);

    expect((await call(t.write, { session_id: id }, ctx)).text).toBe(`Error: exec session not found: '${id}'`);
    expect((await call(t.list, {}, ctx)).text).toBe('No active exec sessions.');
  });

  it('close_stdin sends EOF and the exit is reported with the last output', { timeout: 60_000 }, async () => {
    const t = tools(mode);
    const ctx = ws.ctx({ sessionKey: 'cli:direct' });
    const id = sessionIdOf((await call(t.exec, { command: 'node server.cjs', yield_time_ms: 0 }, ctx)).text);
    const out = await call(t.write, { session_id: id, chars: 'last\n', close_stdin: true, wait_for: 'bye', wait_timeout_ms: 30_000 }, ctx);
    expect(out.text).toContain('echo: last\nbye');
    expect(out.text).toContain('Stdin closed.');
    // The exit may land just after the match; a final poll reports it either way.
    const final = out.text.includes('Exit code: 0') ? out : await call(t.write, { session_id: id, yield_time_ms: 10_000 }, ctx);
    expect(final.text).toMatch(/Exit code: 0\nElapsed: /);
    expect(manager.size).toBe(0);
  });

  it('a command that ends within yield_time_ms returns like exec, with no session left', { timeout: 30_000 }, async () => {
    const t = tools(mode);
    const out = await call(t.exec, { command: 'echo hi; echo oops >&2; exit 3', yield_time_ms: 20_000 }, ws.ctx());
    expect(out.text).toMatch(/^hi\n\nSTDERR:\noops\n\nExit code: 3\nElapsed: \d+\.\ds$/);
    expect(manager.size).toBe(0);
  });

  it('a session is killed at its timeout and reported as an error', { timeout: 30_000 }, async () => {
    const t = tools(mode);
    const ctx = ws.ctx();
    const id = sessionIdOf((await call(t.exec, { command: 'sleep 30', timeout: 1, yield_time_ms: 0 }, ctx)).text);
    const [info] = manager.list(ctx.sessionKey);
    const out = await call(t.write, { session_id: id, yield_time_ms: 20_000 }, ctx);
    expect(out.isError).toBe(true);
    expect(out.text).toContain('Error: Command timed out; session was terminated.');
    expect(await eventually(() => isGone(info.pid as number))).toBe(true);
  });

  it('output since the last poll is capped by max_output_chars and the cut counted', { timeout: 30_000 }, async () => {
    const t = tools(mode);
    const out = await call(t.exec, { command: "head -c 200000 /dev/zero | tr '\\0' x", yield_time_ms: 20_000, max_output_chars: 1000 }, ws.ctx());
    // 200 000 characters: the session keeps 50 000, the poll returns 1000 of them.
    expect(out.text).toBe(`${'x'.repeat(1000)}\n(199,000 chars truncated from output)\nExit code: 0\n${out.text.split('\n').at(-1)}`);
  });
});

describe('sessions belong to the chat that started them', () => {
  it('20 sessions across 4 chats: no chat can list, poll, feed or end another chat\'s', { timeout: 120_000 }, async () => {
    const t = tools('none');
    const chats = ['telegram:1', 'telegram:2', 'slack:C1', 'cli:direct'];
    const ids = new Map<string, string[]>();
    for (const chat of chats) {
      const mine: string[] = [];
      for (let i = 0; i < 5; i++) {
        const out = await call(t.exec, { command: `cat; echo ${chat}-${i}`, yield_time_ms: 0 }, ws.ctx({ sessionKey: chat }));
        mine.push(sessionIdOf(out.text));
      }
      ids.set(chat, mine);
    }
    for (const chat of chats) {
      const listed = (await call(t.list, {}, ws.ctx({ sessionKey: chat }))).text.split('\n').map((line) => line.split(' | ')[0]);
      expect(listed.sort()).toEqual([...(ids.get(chat) ?? [])].sort());
    }
    for (const [owner, mine] of ids) {
      for (const intruder of chats.filter((c) => c !== owner)) {
        const ctx = ws.ctx({ sessionKey: intruder });
        for (const id of mine) {
          for (const args of [{}, { chars: 'x\n' }, { close_stdin: true }, { terminate: true }, { wait_for: 'x', wait_timeout_ms: 0 }]) {
            const out = await call(t.write, { session_id: id, yield_time_ms: 0, ...args }, ctx);
            // Exactly the answer for an id that never existed.
            expect(out).toEqual({ text: `Error: exec session not found: '${id}'`, isError: true });
          }
        }
      }
    }
    expect(manager.size).toBe(20);
    // Nothing written by an intruder reached the owner's session.
    const [first] = ids.get('telegram:1') ?? [];
    const own = await call(t.write, { session_id: first, close_stdin: true, wait_for: 'telegram:1-0', wait_timeout_ms: 30_000 }, ws.ctx({ sessionKey: 'telegram:1' }));
    expect(own.text).toMatch(/^telegram:1-0\n/);
  });

  it('killSession ends one chat\'s sessions only; killAll ends the rest; no process of theirs survives', { timeout: 60_000 }, async () => {
    for (const mode of EXEC_MODES) {
      const t = tools(mode);
      const chatMarkers = { a: marked(), b: marked() };
      for (const chat of ['a', 'b'] as const) {
        for (let i = 0; i < 3; i++) await call(t.exec, { command: `sleep ${chatMarkers[chat]}; true`, yield_time_ms: 0 }, ws.ctx({ sessionKey: chat }));
      }
      const pidsOf = (chat: string) => manager.list(chat).map((info) => info.pid as number);
      const a = pidsOf('a');
      const b = pidsOf('b');
      expect(a).toHaveLength(3);
      expect(manager.killSession('a')).toBe(3);
      for (const pid of a) expect(await eventually(() => isGone(pid))).toBe(true);
      // Nothing of theirs either (a box's namespace init, the shell's sleep), wherever re-parented.
      expect(await eventually(async () => (await processesWith(chatMarkers.a)).length === 0)).toBe(true);
      for (const pid of b) expect(await isGone(pid)).toBe(false);
      expect(manager.list('a')).toEqual([]);
      expect(manager.killAll()).toBe(3);
      for (const pid of b) expect(await eventually(() => isGone(pid))).toBe(true);
      expect(await eventually(async () => (await processesWith(chatMarkers.b)).length === 0)).toBe(true);
      expect(manager.size).toBe(0);
    }
  });

  it('sessions killed at any moment of their start leave no process behind (boxed and unboxed)', { timeout: 180_000 }, async () => {
    assertBubblewrap();
    // A kill that landed while bwrap set up its namespace used to leave its init (and the
    // command) running, re-parented to pid 1: about 1 in 60 starts on a loaded machine.
    const sandboxes = [selectSandbox('required').sandbox, new NoSandbox()];
    const many = newManager({ maxSessionsPerOwner: 1000, maxSessions: 1000 });
    const marker = marked();
    for (let i = 0; i < 150; i++) {
      const sandbox = sandboxes[i % 3 === 2 ? 1 : 0];
      const started = many.start({ owner: 'race', command: `sleep ${marker}; true`, shell: ['/bin/bash', '-c'], cwd: ws.root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, sandbox, timeoutMs: 0 }, 0, 1000);
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      if (i % 2 === 0) many.killSession('race');
      else many.killAll();
      await started;
    }
    expect(await eventually(async () => (await processesWith(marker)).length === 0, 600)).toBe(true);
  });

  it('a chat is capped at maxSessionsPerOwner, other chats are not affected', { timeout: 60_000 }, async () => {
    manager = newManager({ maxSessionsPerOwner: 2 });
    const t = tools('none');
    for (let i = 0; i < 2; i++) await call(t.exec, { command: 'sleep 300', yield_time_ms: 0 }, ws.ctx({ sessionKey: 'a' }));
    const refused = await call(t.exec, { command: 'sleep 300', yield_time_ms: 0 }, ws.ctx({ sessionKey: 'a' }));
    expect(refused).toEqual({ text: 'Error executing command: maximum exec sessions reached (2)', isError: true });
    const other = await call(t.exec, { command: 'sleep 300', yield_time_ms: 0 }, ws.ctx({ sessionKey: 'b' }));
    expect(other.text).toContain('Process running');
  });

  it('writing to a session that has exited is an error result; a poll then reports the exit', { timeout: 30_000 }, async () => {
    const t = tools('none');
    const ctx = ws.ctx();
    const id = sessionIdOf((await call(t.exec, { command: 'echo done; sleep 0.2', yield_time_ms: 0 }, ctx)).text);
    const [info] = manager.list(ctx.sessionKey);
    expect(await eventually(() => isGone(info.pid as number))).toBe(true);
    expect(await eventually(async () => manager.list(ctx.sessionKey)[0]?.exitCode === 0)).toBe(true);
    expect(await call(t.write, { session_id: id, chars: 'x\n', yield_time_ms: 0 }, ctx)).toEqual({ text: 'Error writing to exec session: session has already exited', isError: true });
    expect((await call(t.list, {}, ctx)).text).toMatch(new RegExp(`^${id} \\| exited \\|`));
    expect((await call(t.write, { session_id: id }, ctx)).text).toMatch(/^done\n\nExit code: 0\nElapsed: /);
    expect(manager.size).toBe(0);
  });
});

describe('withoutRcFiles', () => {
  it('adds --norc to bash only, once', () => {
    expect(withoutRcFiles(['/bin/bash', '-c'])).toEqual(['/bin/bash', '--norc', '-c']);
    expect(withoutRcFiles(['bash', '--norc', '-c'])).toEqual(['bash', '--norc', '-c']);
    expect(withoutRcFiles(['/bin/sh', '-c'])).toEqual(['/bin/sh', '-c']);
    expect(withoutRcFiles(['/opt/mybash-wrapper', '-c'])).toEqual(['/opt/mybash-wrapper', '-c']);
  });
});
