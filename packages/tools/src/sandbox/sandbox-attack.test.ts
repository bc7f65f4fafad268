// Attacks on exec, by class, run inside the sandbox with the deny list out of the way
// (`allowPatterns: ['.*']`) so that only bubblewrap stands in front. Every target outside the
// workspace is a directory this test creates; destructive commands run only here, boxed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPidsCgroup } from './create-pids-cgroup.js';
import { execTool, isGone, sizeOf, stoppedGrowing, ticker } from '../test-support/exec-harness.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
let home: string;
beforeEach(async () => {
  ws = await createTempWorkspace();
  home = join(ws.base, 'home');
  await mkdir(join(home, '.nanobot', 'sessions'), { recursive: true });
  await writeFile(join(home, '.nanobot', 'sessions', 'chat.jsonl'), 'TOP SECRET session\n');
  await writeFile(join(home, '.netrc'), 'TOP SECRET netrc\n');
});
afterEach(() => ws.dispose());

/** The sandboxed tool with the guard's deny list bypassed: the sandbox alone must hold. */
const boxed = (extra: Parameters<typeof execTool>[1] = {}) => execTool('required', { allowPatterns: ['.*'], ...extra });

async function run(command: string, extra: Parameters<typeof execTool>[1] = {}, timeout = 20): Promise<string> {
  const saved = process.env.HOME;
  // The agent's HOME points at the fake home: `~`, `$HOME` and /proc tricks aim at it.
  process.env.HOME = home;
  try {
    return (await call(boxed(extra), { command, timeout }, ws.ctx())).text;
  } finally {
    process.env.HOME = saved;
  }
}

describe('nothing outside the workspace is readable', () => {
  it('no spelling of a path reaches the sibling directory, the home directory or /root', async () => {
    await symlink(ws.outside, join(ws.root, 'link-out'));
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'secret-link'));
    const o = ws.outside;
    const attacks = [
      'cat ../outside/secret.txt',
      'cd ..; cat outside/secret.txt',
      'cd ../..; cat "$(ls -d */ | head -1)"outside/secret.txt',
      'cat "${PWD%/*}/outside/secret.txt"',
      'cat "$(dirname "$PWD")/outside/secret.txt"',
      `cat $'\\056\\056/outside/secret.txt'`,
      `cat "$(printf '\\x2e\\x2e/outside/secret.txt')"`,
      `cat ${o}/secret.txt`,
      `cat "$(echo ${Buffer.from(`${o}/secret.txt`).toString('base64')} | base64 -d)"`,
      'cat link-out/secret.txt',
      'cat secret-link',
      `ln -s ${o} mine && cat mine/secret.txt`,
      `ln ${o}/secret.txt hard 2>&1; cat hard`,
      'cat ~/.netrc; cat $HOME/.netrc; cat ~/.nanobot/sessions/chat.jsonl',
      `cat ${home}/.netrc ${home}/.nanobot/sessions/chat.jsonl`,
      'ls -la /root /home 2>&1; cat /root/.nanobot/* 2>&1',
      `cat /proc/1/root${o}/secret.txt /proc/self/root${o}/secret.txt`,
      'cat /proc/$PPID/cwd/../outside/secret.txt',
      `python3 -c "print(open('${o}/secret.txt').read())"`,
      `perl -e 'open F, "<", "${o}/secret.txt"; print <F>'`,
      `find / \\( -path /proc -o -path /usr -o -path /sys \\) -prune -o -name secret.txt -print -exec cat {} + 2>/dev/null`,
      'grep -rs "TOP SECRET" /tmp /dev /etc /proc/1/cwd/.. 2>/dev/null',
      'cat /etc/shadow /etc/gshadow',
    ];
    for (const command of attacks) {
      const out = await run(command);
      expect(out, command).not.toContain('TOP SECRET');
    }
  });

  it('the host root shows only the system directories, /etc only a few files', async () => {
    const out = await run('ls /; echo ---; ls /etc');
    const [top, etc] = out.split('\n\n\nExit code')[0].split('---\n');
    expect(top.trim().split('\n').sort()).toEqual(expect.arrayContaining(['dev', 'proc', 'tmp', 'usr']));
    for (const hidden of ['root', 'home', 'work', 'var', 'opt', 'srv', 'mnt']) expect(top.split('\n'), hidden).not.toContain(hidden);
    expect(etc.split('\n')).toContain('passwd');
    expect(etc.split('\n')).not.toContain('shadow');
  });
});

describe('nothing outside the workspace is writable', () => {
  it('writes outside land nowhere; system directories are read-only', async () => {
    const hostsBefore = await readFile('/etc/hosts', 'utf8');
    const attacks = [
      'echo pwned > ../outside/pwned',
      `echo pwned > ${ws.outside}/pwned; touch ${ws.outside}/pwned2`,
      `dd if=/dev/zero of=${ws.outside}/secret.txt bs=1 count=4`,
      'echo pwned >> /etc/hosts',
      'touch /usr/pwned /usr/bin/pwned',
      `mkdir -p ${home} && echo pwned > ${home}/.netrc`,
      'echo pwned > ~/.netrc',
    ];
    for (const command of attacks) await run(command);
    expect((await readdir(ws.outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(await readFile(join(home, '.netrc'), 'utf8')).toBe('TOP SECRET netrc\n');
    expect(await readFile('/etc/hosts', 'utf8')).toBe(hostsBefore);
    expect(await sizeOf('/usr/pwned')).toBe(0);
  });
});

describe('no secret of the agent is readable', () => {
  it('neither the environment nor /proc of any process shows the agent\'s keys', async () => {
    process.env.OPENAI_API_KEY = 'sk-agent-secret-0451';
    process.env.NANOBOT_TEST_TOKEN = 'tok-agent-secret-0451';
    try {
      const attacks = [
        'env',
        "tr '\\0' '\\n' < /proc/$PPID/environ",
        "tr '\\0' '\\n' < /proc/1/environ",
        'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done',
        'cat /proc/self/environ',
        `for p in $(ls /proc | grep -E '^[0-9]+$'); do cat /proc/$p/cmdline; echo; done`,
      ];
      for (const command of attacks) {
        const out = await run(command);
        expect(out, command).not.toContain('agent-secret-0451');
      }
      // The agent's own pid is not even in the sandbox's /proc.
      expect(await run(`ls /proc/${process.pid} 2>&1 >/dev/null | head -1; echo x`)).toContain('No such file');
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.NANOBOT_TEST_TOKEN;
    }
  });
});

describe('destructive commands stay in the box', () => {
  let sentinel: ChildProcess;
  beforeAll(() => {
    sentinel = spawn('sleep', ['120'], { stdio: 'ignore' });
  });
  afterAll(() => {
    sentinel.kill('SIGKILL');
  });

  it('rm -rf / empties only the workspace; the host and the directory beside it survive', async () => {
    // Canary first: if the box did not hide the sibling directory, stop before deleting anything.
    expect(await run(`ls ${ws.outside} 2>&1`)).toContain('No such file');
    await ws.write('work/file.txt', 'x');
    await run('rm -rf --no-preserve-root / 2>/dev/null; rm -rf /* 2>/dev/null; echo done');
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(await sizeOf('/usr/bin/env')).toBeGreaterThan(0);
    expect(await readdir(ws.root)).toEqual([]);
  });

  it('kill -9 -1 kills only the sandbox\'s own processes', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await run(`${ticker(ticks)} & sleep 0.3; kill -9 -1; wait; echo "shell spared"`);
    expect(out).toContain('shell spared');
    expect(await stoppedGrowing(ticks)).toBe(true);
    expect(await isGone(sentinel.pid!)).toBe(false);
  });

  it('a fork bomb is bounded by the pids limit and the timeout, and nothing of it survives', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await run(`${ticker(ticks)} & :(){ :|:& };:`, { pidsLimit: 64 }, 2);
    expect(out).toMatch(/timed out|Exit code/);
    expect(await isGone(sentinel.pid!)).toBe(false);
    expect(await stoppedGrowing(ticks)).toBe(true);
  });

  it('a call cannot run more processes than pidsLimit at once', async () => {
    if (!createPidsCgroup(1)) throw new Error('no writable pids cgroup here: the limit cannot be enforced (see the README threat model)');
    const out = await run('for i in $(seq 40); do sleep 2 & done 2>&1 | grep -c -i "resource temporarily unavailable"; kill -9 -1', { pidsLimit: 16 });
    expect(Number(out.trim().split('\n')[0])).toBeGreaterThan(0);
  });
});

describe('the network is off unless allowed', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a server on the host loopback is unreachable from the box, reachable with allowNetwork', async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo unreachable`;
    expect(await run(probe)).toContain('unreachable');
    expect(await run('cat /sys/class/net/*/operstate 2>/dev/null; ls /sys 2>&1 | head -1')).not.toContain('up');
    expect(await run(probe, { allowNetwork: true })).toContain('hello from the host');
  });
});
