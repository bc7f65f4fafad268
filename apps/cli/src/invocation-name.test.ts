import { describe, expect, it } from 'vitest';
import { invocationName } from './invocation-name.js';

describe('invocationName', () => {
  it('names the command the way it was started', () => {
    expect(invocationName({ npm_lifecycle_event: 'nanobot' }, '/repo/apps/cli/dist/bin.js', '/repo')).toBe('pnpm nanobot');
    expect(invocationName({ npm_lifecycle_event: 'nanobot', npm_package_json: '/repo/package.json', INIT_CWD: '/repo/apps' }, '/repo/apps/cli/dist/bin.js', '/repo')).toBe('pnpm nanobot');
    expect(invocationName({ npm_lifecycle_event: 'nanobot', npm_package_json: '/repo/package.json', INIT_CWD: '/tmp/x' }, '/repo/apps/cli/dist/bin.js', '/repo')).toBe('pnpm -C /repo nanobot');
    expect(invocationName({ npm_lifecycle_event: 'demo' }, '/repo/apps/cli/dist/bin.js', '/repo')).toBe('pnpm nanobot');
    expect(invocationName({}, '/usr/local/bin/nanobot', '/home/me')).toBe('nanobot');
    expect(invocationName({}, '/repo/apps/cli/dist/bin.js', '/repo')).toBe('node apps/cli/dist/bin.js');
    expect(invocationName({}, '/repo/apps/cli/dist/bin.js', '/elsewhere/deep')).toBe('node /repo/apps/cli/dist/bin.js');
    expect(invocationName({}, '/my repo/bin.js', '/')).toBe('node "my repo/bin.js"');
    expect(invocationName({}, undefined, '/')).toBe('nanobot');
  });
});
