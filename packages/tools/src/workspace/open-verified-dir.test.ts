import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectoryOutsideError } from './directory-outside-error.js';
import { openVerifiedDir } from './open-verified-dir.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
  await mkdir(join(ws.root, 'sub', 'inner'), { recursive: true });
  await writeFile(join(ws.root, 'sub', 'inner', 'a.txt'), 'a');
});
afterEach(() => ws.dispose());

const names = (entries: readonly { name: string }[]) => entries.map((e) => e.name).sort();

describe('openVerifiedDir', () => {
  it('lists a directory inside the roots and reports where the kernel says it is', async () => {
    const dir = await openVerifiedDir(join(ws.root, 'sub'), [ws.root]);
    expect(dir.realPath).toBe(join(ws.root, 'sub'));
    expect(names(dir.entries)).toEqual(['inner']);
  });

  it('refuses a last component that is a symlink (O_NOFOLLOW), even one pointing inside', async () => {
    await symlink(ws.outside, join(ws.root, 'out'));
    await symlink(join(ws.root, 'sub'), join(ws.root, 'in'));
    await expect(openVerifiedDir(join(ws.root, 'out'), [ws.root])).rejects.toBeInstanceOf(DirectoryOutsideError);
    await expect(openVerifiedDir(join(ws.root, 'in'), [ws.root])).rejects.toMatchObject({ code: 'DIRECTORY_OUTSIDE' });
  });

  it('refuses a path whose parent was swapped for a symlink out (the descriptor check)', async () => {
    await mkdir(join(ws.outside, 'inner'));
    await writeFile(join(ws.outside, 'inner', 'secret-name.txt'), 'x');
    await rename(join(ws.root, 'sub'), join(ws.root, 'sub-moved'));
    await symlink(ws.outside, join(ws.root, 'sub'));
    await expect(openVerifiedDir(join(ws.root, 'sub', 'inner'), [ws.root])).rejects.toBeInstanceOf(DirectoryOutsideError);
  });

  it('unconfined (no roots) it reads the path as given, symlinks followed', async () => {
    await symlink(ws.outside, join(ws.root, 'out'));
    const dir = await openVerifiedDir(join(ws.root, 'out'), undefined);
    expect(names(dir.entries)).toEqual(['secret.txt']);
  });

  it('passes file-system errors through', async () => {
    await expect(openVerifiedDir(join(ws.root, 'missing'), [ws.root])).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(openVerifiedDir(join(ws.root, 'sub', 'inner', 'a.txt'), [ws.root])).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
