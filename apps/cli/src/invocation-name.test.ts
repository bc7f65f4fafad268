import { describe, expect, it } from 'vitest';
import { invocationWords } from './invocation-name.js';

const REPO = '/repo';
const NPX_PNPM = '/home/me/.npm/_npx/c80dab5832ec79ce/node_modules/pnpm/bin/pnpm.cjs';
const LOCAL_PNPM = '/repo/node_modules/.pnpm/pnpm@10.34.9/node_modules/pnpm/bin/pnpm.cjs';
// What pnpm puts in front of PATH for a script, then the user's own PATH.
const scriptPath = (user: string): string => `/repo/node_modules/.bin:/home/me/.npm/_npx/c80dab5832ec79ce/node_modules/.bin:${user}`;

function rootScript(extra: Record<string, string>): Record<string, string> {
  return { npm_lifecycle_event: 'nanobot', npm_package_json: `${REPO}/package.json`, npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64', ...extra };
}

/** A file system where only `executables` are executable files. */
const probe = (executables: string[], same: [string, string][] = []) => ({
  isExecutable: (path: string) => executables.includes(path),
  isSameFile: (a: string, b: string) => a === b || same.some(([x, y]) => (x === a && y === b) || (x === b && y === a)),
});

describe('invocationWords', () => {
  it('through the root script started with npx (README): npx -y pnpm@<version>, -C when outside the repository', () => {
    const env = rootScript({ npm_execpath: NPX_PNPM, INIT_CWD: REPO, PATH: scriptPath('/usr/bin:/bin') });
    // pnpm itself is in node_modules/.bin (a devDependency), but not on the user's own PATH.
    const p = probe(['/repo/node_modules/.bin/pnpm', '/usr/bin/node']);
    expect(invocationWords(env, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['npx', '-y', 'pnpm@10.34.9', 'nanobot']);
    expect(invocationWords({ ...env, INIT_CWD: '/repo/apps' }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['npx', '-y', 'pnpm@10.34.9', 'nanobot']);
    expect(invocationWords({ ...env, INIT_CWD: '/tmp/x' }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['npx', '-y', 'pnpm@10.34.9', '-C', '/repo', 'nanobot']);
    // npx found the repository's own pnpm (same version): still npx, as there is no pnpm to type.
    expect(invocationWords({ ...env, npm_execpath: LOCAL_PNPM }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['npx', '-y', 'pnpm@10.34.9', 'nanobot']);
  });

  it('through the root script with a pnpm of the user\'s own: pnpm nanobot, pnpm -C <repo> nanobot', () => {
    const env = rootScript({ npm_execpath: '/usr/local/lib/node_modules/pnpm/bin/pnpm.cjs', INIT_CWD: REPO, PATH: scriptPath('/usr/local/bin:/usr/bin') });
    const p = probe(['/usr/local/bin/pnpm']);
    expect(invocationWords(env, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['pnpm', 'nanobot']);
    expect(invocationWords({ ...env, INIT_CWD: '/tmp/x' }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['pnpm', '-C', '/repo', 'nanobot']);
    expect(invocationWords({ ...env, npm_lifecycle_event: 'demo' }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['pnpm', 'nanobot']);
    // Typed as npx although a pnpm is installed: what was typed.
    expect(invocationWords({ ...env, npm_execpath: NPX_PNPM }, '/repo/apps/cli/dist/bin.js', REPO, p)).toEqual(['npx', '-y', 'pnpm@10.34.9', 'nanobot']);
  });

  it('through the root script run by npm: npm run nanobot --', () => {
    const env = rootScript({ npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false', INIT_CWD: '/tmp/x', PATH: '/usr/bin' });
    expect(invocationWords(env, '/repo/apps/cli/dist/bin.js', REPO, probe([]))).toEqual(['npm', '--prefix', '/repo', 'run', 'nanobot', '--']);
  });

  it('an installed nanobot: by name when it is the one on PATH, else by its path; npx nanobot', () => {
    const p = probe(['/usr/local/bin/nanobot'], [['/usr/local/bin/nanobot', '/usr/local/lib/node_modules/@nanobot/cli/dist/bin.js']]);
    expect(invocationWords({ PATH: '/usr/local/bin:/usr/bin' }, '/usr/local/bin/nanobot', '/home/me', p)).toEqual(['nanobot']);
    expect(invocationWords({ PATH: '/usr/bin' }, '/home/me/proj/node_modules/.bin/nanobot', '/home/me/proj', p)).toEqual(['./node_modules/.bin/nanobot']);
    expect(invocationWords({ npm_command: 'exec', PATH: '/usr/bin' }, '/home/me/proj/node_modules/.bin/nanobot', '/home/me/proj', p)).toEqual(['npx', 'nanobot']);
  });

  it('a script run with node: node and its path, relative when shorter', () => {
    expect(invocationWords({}, '/repo/apps/cli/dist/bin.js', '/repo', probe([]))).toEqual(['node', 'apps/cli/dist/bin.js']);
    expect(invocationWords({}, '/repo/apps/cli/dist/bin.js', '/elsewhere/deep', probe([]))).toEqual(['node', '/repo/apps/cli/dist/bin.js']);
    expect(invocationWords({}, '/my repo/bin.js', '/', probe([]))).toEqual(['node', 'my repo/bin.js']);
    expect(invocationWords({}, undefined, '/', probe([]))).toEqual(['nanobot']);
  });
});
