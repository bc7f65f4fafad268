// scripts/provision-test-deps.mjs, the test command's installer of Chromium and bubblewrap, run
// against stand-in apt-get and sudo commands (shell scripts that log what they were asked and
// create the files a real install would), with the Debian paths pointed into a temporary
// directory: this machine's own /usr/bin/chromium and bwrap stay untouched.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from './workspace.js';

interface Provisioned {
  name: string;
  path: string;
  installed: boolean;
}
interface ProvisionModule {
  provisionTestDeps(options?: {
    packages?: string[];
    only?: string[];
    env?: Record<string, string | undefined>;
    isRoot?: boolean;
    debianPaths?: { chromium: string; bwrap: string };
    aptGet?: string;
    sudo?: string;
    log?: (line: string) => void;
  }): Provisioned[];
  ProvisionError: new (message: string) => Error;
}
const { provisionTestDeps, ProvisionError } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'provision-test-deps.mjs')).href)) as ProvisionModule;

let dir: string;
let bin: string;
let calls: string;
let debianPaths: { chromium: string; bwrap: string };

/** A stand-in command: logs its arguments (and DEBIAN_FRONTEND) to `calls`, then runs `body`. */
function fakeCommand(name: string, body: string): string {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/sh\necho "${name} DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-unset} $*" >> '${calls}'\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
/** An apt-get that "installs" chromium and bubblewrap where Debian would put them (here: in dir). */
const installingAptGet = (): string =>
  fakeCommand(
    'apt-get',
    `case "$1" in install) for p in "$@"; do case "$p" in chromium) touch '${debianPaths.chromium}';; bubblewrap) touch '${debianPaths.bwrap}';; esac; done;; esac\nexit 0`,
  );
const logged = (): string[] => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);
// PATH holds the stand-ins and the two tools they use, never the machine's /usr/bin (its bwrap).
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ PATH: `${bin}:${join(dir, 'tools')}`, ...extra });
const quiet = { log: () => {} };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nanobot-provision-'));
  bin = join(dir, 'bin');
  mkdirSync(bin);
  calls = join(dir, 'calls.log');
  debianPaths = { chromium: join(dir, 'usr-bin', 'chromium'), bwrap: join(dir, 'usr-bin', 'bwrap') };
  mkdirSync(join(dir, 'usr-bin'));
  mkdirSync(join(dir, 'tools'));
  for (const tool of ['touch', 'env']) symlinkSync(`/usr/bin/${tool}`, join(dir, 'tools', tool));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('provisionTestDeps', () => {
  it('runs nothing when both are there (bwrap found on PATH, chromium at the Debian path)', () => {
    writeFileSync(debianPaths.chromium, '');
    fakeCommand('bwrap', 'exit 0');
    installingAptGet();
    const found = provisionTestDeps({ env: env(), debianPaths, isRoot: true, ...quiet });
    expect(found).toEqual([
      { name: 'chromium', path: debianPaths.chromium, installed: false },
      { name: 'bubblewrap', path: join(bin, 'bwrap'), installed: false },
    ]);
    expect(logged()).toEqual([]);
  });

  it('as root: apt-get update, then one non-interactive install of both, and both are found after', () => {
    installingAptGet();
    const lines: string[] = [];
    const found = provisionTestDeps({ env: env(), debianPaths, isRoot: true, log: (l) => lines.push(l) });
    expect(logged()).toEqual(['apt-get DEBIAN_FRONTEND=noninteractive update -qq', 'apt-get DEBIAN_FRONTEND=noninteractive install -y -qq chromium bubblewrap']);
    expect(found).toEqual([
      { name: 'chromium', path: debianPaths.chromium, installed: true },
      { name: 'bubblewrap', path: debianPaths.bwrap, installed: true },
    ]);
    expect(lines.join('\n')).toMatch(/installing chromium and bubblewrap for the tests/);
  });

  it('installs only what is missing, and only for the packages whose tests run', () => {
    installingAptGet();
    writeFileSync(debianPaths.chromium, '');
    provisionTestDeps({ env: env(), debianPaths, isRoot: true, packages: ['@nanobot/tools', '@nanobot/web'], ...quiet });
    expect(logged().at(-1)).toBe('apt-get DEBIAN_FRONTEND=noninteractive install -y -qq bubblewrap');
    rmSync(calls);
    rmSync(debianPaths.chromium);
    rmSync(debianPaths.bwrap);
    // The governor's tests need neither: nothing is installed, nothing is asked.
    expect(provisionTestDeps({ env: env(), debianPaths, isRoot: false, packages: ['@nanobot/governor'], ...quiet })).toEqual([]);
    expect(logged()).toEqual([]);
    // Only the web demo's: Chromium alone.
    provisionTestDeps({ env: env(), debianPaths, isRoot: true, packages: ['@nanobot/web'], ...quiet });
    expect(logged().at(-1)).toBe('apt-get DEBIAN_FRONTEND=noninteractive install -y -qq chromium');
  });

  it('not root, with password-less sudo: through `sudo -n env DEBIAN_FRONTEND=noninteractive apt-get`', () => {
    const aptGet = installingAptGet();
    // A sudo that resets the environment, as the real one does, then runs the command.
    fakeCommand('sudo', '[ "$1" = "-n" ] || exit 9\nshift\n[ "$1" = "true" ] && exit 0\nexec env -i PATH="$PATH" "$@"');
    provisionTestDeps({ env: env({ DEBIAN_FRONTEND: 'dialog' }), debianPaths, isRoot: false, ...quiet });
    expect(logged()).toEqual([
      'sudo DEBIAN_FRONTEND=dialog -n true',
      `sudo DEBIAN_FRONTEND=dialog -n env DEBIAN_FRONTEND=noninteractive ${aptGet} update -qq`,
      'apt-get DEBIAN_FRONTEND=noninteractive update -qq',
      `sudo DEBIAN_FRONTEND=dialog -n env DEBIAN_FRONTEND=noninteractive ${aptGet} install -y -qq chromium bubblewrap`,
      'apt-get DEBIAN_FRONTEND=noninteractive install -y -qq chromium bubblewrap',
    ]);
    expect(existsSync(debianPaths.chromium) && existsSync(debianPaths.bwrap)).toBe(true);
  });

  it('not root and no sudo, or a sudo that wants a password: an error naming the command to run, nothing installed', () => {
    installingAptGet();
    const run = () => provisionTestDeps({ env: env(), debianPaths, isRoot: false, ...quiet });
    expect(run).toThrow(ProvisionError);
    expect(run).toThrow('sudo apt-get update && sudo apt-get install -y chromium bubblewrap');
    fakeCommand('sudo', 'exit 1'); // what `sudo -n` does when it would ask for a password
    expect(run).toThrow(/cannot use sudo without a password[\s\S]*as root: apt-get update && apt-get install -y chromium bubblewrap/);
    expect(logged()).toEqual(['sudo DEBIAN_FRONTEND=unset -n true']);
    expect(existsSync(debianPaths.chromium)).toBe(false);
  });

  it('no apt-get: an error naming the packages and what needs them', () => {
    const run = () => provisionTestDeps({ env: env(), debianPaths, isRoot: true, aptGet: join(dir, 'no-apt-get'), ...quiet });
    expect(run).toThrow(ProvisionError);
    expect(run).toThrow(/chromium \(for the web demo's browser tests[\s\S]*bubblewrap \(for the exec sandbox tests[\s\S]*apt-get is not on this machine/);
  });

  it('a failing apt-get, or one that installs nothing: an error, never a silent pass', () => {
    fakeCommand('apt-get', 'exit 100');
    expect(() => provisionTestDeps({ env: env(), debianPaths, isRoot: true, ...quiet })).toThrow(/Installing chromium bubblewrap with apt-get failed[\s\S]*apt-get update && apt-get install -y chromium bubblewrap/);
    fakeCommand('apt-get', 'exit 0');
    expect(() => provisionTestDeps({ env: env(), debianPaths, isRoot: true, ...quiet })).toThrow(/still not where the tests look for it/);
  });

  it('a NANOBOT_CHROMIUM that points nowhere is reported, not papered over by installing Debian\'s', () => {
    installingAptGet();
    const run = () => provisionTestDeps({ env: env({ NANOBOT_CHROMIUM: join(dir, 'my-chrome') }), debianPaths, isRoot: true, only: ['chromium'], ...quiet });
    expect(run).toThrow(/NANOBOT_CHROMIUM=.*my-chrome does not exist/);
    expect(logged()).toEqual([]);
    writeFileSync(join(dir, 'my-chrome'), '');
    expect(run()).toEqual([{ name: 'chromium', path: join(dir, 'my-chrome'), installed: false }]);
  });
});
