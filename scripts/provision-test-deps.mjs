#!/usr/bin/env node
// What the test suites need from the machine, brought by the test command itself so that the
// README's `install` + `test` pass on a machine with only Node and npm: Debian's Chromium for the
// web demo's browser tests and bubblewrap for the exec sandbox tests. Missing ones are installed
// with apt-get (as root, or through `sudo -n` otherwise) before any suite starts; when neither
// works, the error names the exact command to run. Never a skip: a test that needs a browser
// runs with one or the run fails.
// Usage: node scripts/provision-test-deps.mjs [--only chromium,bubblewrap]
//   (scripts/test.mjs and scripts/test-on-node.mjs call provisionTestDeps() themselves)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** Where Debian's packages put the binaries. */
export const DEBIAN_PATHS = { chromium: '/usr/bin/chromium', bwrap: '/usr/bin/bwrap' };

/**
 * The machine's test dependencies: the Debian package, which packages' tests need it, and how to
 * tell it is there (`env` and `debianPaths`, both overridable in provisionTestDeps, give the paths).
 */
export const TEST_DEPS = [
  {
    name: 'chromium',
    debianPackage: 'chromium',
    neededBy: ['@nanobot/web'],
    why: "the web demo's browser tests (apps/web *.browser.test.ts)",
    // The path the browser tests launch (apps/web/src/test-support/chromium-page.ts).
    find: ({ env, debianPaths }) => {
      const path = env.NANOBOT_CHROMIUM ?? debianPaths.chromium;
      return existsSync(path) ? path : null;
    },
    // A NANOBOT_CHROMIUM that points nowhere is the user's choice: installing Debian's package
    // would not put a browser there.
    installable: ({ env }) => env.NANOBOT_CHROMIUM === undefined,
  },
  {
    name: 'bubblewrap',
    debianPackage: 'bubblewrap',
    neededBy: ['@nanobot/tools', '@nanobot/runner', '@nanobot/cli'],
    why: 'the exec sandbox tests (packages/tools, packages/runner, apps/cli)',
    // Where the exec tool looks for it (packages/tools findBwrap): PATH, then /usr/bin/bwrap.
    find: ({ env, debianPaths }) => {
      for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'bwrap'))) return join(dir, 'bwrap');
      return existsSync(debianPaths.bwrap) ? debianPaths.bwrap : null;
    },
    installable: () => true,
  },
];

/** Thrown when a test dependency is missing and cannot be installed here; the message says how. */
export class ProvisionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ProvisionError';
  }
}

function onPath(command, env) {
  if (command.includes('/')) return existsSync(command) ? command : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, command))) return join(dir, command);
  return null;
}

const defaultRun = (command, args, env) => {
  const res = spawnSync(command, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
  return res.status ?? 1;
};

/**
 * Makes sure every test dependency that `packages` need is on this machine, installing the
 * missing ones with apt-get; returns what it found or installed (`{ name, path, installed }`).
 * Throws ProvisionError, naming the command to run, when one is missing and cannot be installed.
 *
 * Options (defaults in brackets; tests override them):
 * - `packages`: the workspace packages whose tests will run [every package];
 * - `only`: dependency names to consider [all of TEST_DEPS];
 * - `env` [process.env] (NANOBOT_CHROMIUM, PATH), `isRoot` [uid 0];
 * - `debianPaths` [DEBIAN_PATHS]: where the Debian packages put chromium and bwrap;
 * - `aptGet` ['apt-get'], `sudo` ['sudo']: the commands used, looked up on env.PATH;
 * - `run(command, args, env)`: runs a command to its end and returns its exit status; called
 *   synchronously, must not throw [spawnSync with the output shown];
 * - `log(line)`: progress lines [stderr].
 */
export function provisionTestDeps(options = {}) {
  const env = options.env ?? process.env;
  const debianPaths = options.debianPaths ?? DEBIAN_PATHS;
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const run = options.run ?? defaultRun;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const deps = TEST_DEPS.filter((d) => (options.only ?? TEST_DEPS.map((x) => x.name)).includes(d.name)).filter((d) => options.packages === undefined || d.neededBy.some((p) => options.packages.includes(p)));
  const found = deps.map((dep) => ({ dep, path: dep.find({ env, debianPaths }) }));
  const missing = found.filter((f) => f.path === null).map((f) => f.dep);
  if (missing.length === 0) return found.map(({ dep, path }) => ({ name: dep.name, path, installed: false }));

  const list = missing.map((d) => `${d.name} (for ${d.why})`).join(' and ');
  const notInstallable = missing.filter((d) => !d.installable({ env }));
  if (notInstallable.length > 0) {
    throw new ProvisionError(`The tests need ${list}, but NANOBOT_CHROMIUM=${env.NANOBOT_CHROMIUM} does not exist: point it at a Chromium binary, or unset it to have Debian's chromium installed at ${debianPaths.chromium}.`);
  }
  const pkgs = missing.map((d) => d.debianPackage);
  const command = `apt-get update && apt-get install -y ${pkgs.join(' ')}`;
  const aptGet = onPath(options.aptGet ?? 'apt-get', env);
  if (aptGet === null) {
    throw new ProvisionError(`The tests need ${list}, which this test command installs with apt-get (Debian, Ubuntu), and apt-get is not on this machine. Install Debian's equivalent of \`${pkgs.join(' ')}\` with your system's package manager, then run the tests again.`);
  }
  let prefix = [];
  if (!isRoot) {
    const sudo = onPath(options.sudo ?? 'sudo', env);
    // `-n`: never wait for a password nobody will type (CI has no terminal).
    if (sudo === null || run(sudo, ['-n', 'true'], env) !== 0) {
      const sudoCommand = `sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`;
      throw new ProvisionError(`The tests need ${list}. Installing them takes root, and this user is not root and cannot use sudo without a password. Run\n  ${sudoCommand}\n(or, as root: ${command}), then run the tests again.`);
    }
    prefix = [sudo, '-n'];
  }
  // sudo resets the environment, so the non-interactive switch goes through `env` there.
  const exec = (args) =>
    prefix.length > 0 ? run(prefix[0], [...prefix.slice(1), 'env', 'DEBIAN_FRONTEND=noninteractive', aptGet, ...args], env) : run(aptGet, args, { ...env, DEBIAN_FRONTEND: 'noninteractive' });
  log(`::: installing ${pkgs.join(' and ')} for the tests (${missing.map((d) => d.why).join('; ')}): ${prefix.length > 0 ? 'sudo ' : ''}${command}`);
  if (exec(['update', '-qq']) !== 0 || exec(['install', '-y', '-qq', ...pkgs]) !== 0) {
    throw new ProvisionError(`Installing ${pkgs.join(' ')} with apt-get failed (its output is above). Run \`${command}\` as root and then the tests again.`);
  }
  const after = deps.map((dep) => ({ dep, path: dep.find({ env, debianPaths }) }));
  const still = after.filter((f) => f.path === null).map((f) => f.dep.name);
  if (still.length > 0) throw new ProvisionError(`apt-get installed ${pkgs.join(' ')}, but ${still.join(' and ')} is still not where the tests look for it.`);
  return after.map(({ dep, path }) => ({ name: dep.name, path, installed: missing.includes(dep) }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  try {
    for (const r of provisionTestDeps({ only: values.only?.split(',') })) console.log(`${r.name}: ${r.path}${r.installed ? ' (installed now)' : ''}`);
  } catch (error) {
    if (!(error instanceof ProvisionError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
