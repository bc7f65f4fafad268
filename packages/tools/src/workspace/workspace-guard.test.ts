import { mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditFileTool } from '../files/edit-file-tool.js';
import { createFindFilesTool } from '../files/find-files-tool.js';
import { createGrepTool } from '../files/grep-tool.js';
import { createListDirTool } from '../files/list-dir-tool.js';
import { openWorkspaceFile } from './open-workspace-file.js';
import { createReadFileTool } from '../files/read-file-tool.js';
import { resolveWorkspacePath } from './resolve-workspace-path.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { call } from '../test-support/run-tool.js';
import { WorkspaceViolationError } from './workspace-violation-error.js';
import { createWriteFileTool } from '../files/write-file-tool.js';
import { scopeFor } from './workspace-scope.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
  await ws.write('inside.txt', 'hello\n');
});
afterEach(() => ws.dispose());

function expectViolation(outcome: { thrown?: unknown; text: string }) {
  expect(outcome.thrown).toBeInstanceOf(WorkspaceViolationError);
  expect((outcome.thrown as WorkspaceViolationError).code).toBe('WORKSPACE_VIOLATION');
  expect(outcome.text).toContain('outside allowed directory');
  expect(outcome.text).toContain('hard policy boundary');
  expect(outcome.text).not.toContain('TOP SECRET');
}

describe('paths outside the workspace are refused by every file tool', () => {
  const attacks = (outside: string) => [
    '../outside/secret.txt',
    'sub/../../outside/secret.txt',
    join(outside, 'secret.txt'),
    '/etc/passwd',
    '~/.ssh/id_rsa',
  ];

  it('read_file', async () => {
    for (const path of attacks(ws.outside)) expectViolation(await call(createReadFileTool(), { path }, ws.ctx()));
  });

  it('write_file writes nothing outside', async () => {
    for (const path of attacks(ws.outside)) {
      expectViolation(await call(createWriteFileTool(), { path, content: 'pwned' }, ws.ctx()));
    }
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('edit_file', async () => {
    expectViolation(await call(createEditFileTool(), { path: '../outside/secret.txt', old_text: 'TOP', new_text: 'X' }, ws.ctx()));
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('list_dir, find_files and grep', async () => {
    expectViolation(await call(createListDirTool(), { path: '..' }, ws.ctx()));
    expectViolation(await call(createListDirTool(), { path: ws.outside }, ws.ctx()));
    expectViolation(await call(createFindFilesTool(), { path: '../outside' }, ws.ctx()));
    expectViolation(await call(createGrepTool(), { pattern: 'SECRET', path: '../outside' }, ws.ctx()));
    expectViolation(await call(createGrepTool(), { pattern: 'SECRET', path: join(ws.outside, 'secret.txt') }, ws.ctx()));
  });

  it('a sibling directory sharing the workspace prefix is outside', async () => {
    await mkdir(`${ws.root}-evil`);
    await writeFile(`${ws.root}-evil/x.txt`, 'TOP SECRET');
    expectViolation(await call(createReadFileTool(), { path: `${ws.root}-evil/x.txt` }, ws.ctx()));
  });
});

describe('symlinks', () => {
  it('a symlinked file pointing outside is refused for read and write', async () => {
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'link.txt'));
    expectViolation(await call(createReadFileTool(), { path: 'link.txt' }, ws.ctx()));
    expectViolation(await call(createWriteFileTool(), { path: 'link.txt', content: 'pwned' }, ws.ctx()));
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('a symlinked directory pointing outside is refused, and not followed by listings or searches', async () => {
    await symlink(ws.outside, join(ws.root, 'escape'));
    expectViolation(await call(createReadFileTool(), { path: 'escape/secret.txt' }, ws.ctx()));
    expectViolation(await call(createWriteFileTool(), { path: 'escape/new.txt', content: 'x' }, ws.ctx()));
    await expect(stat(join(ws.outside, 'new.txt'))).rejects.toThrow();
    const listing = await call(createListDirTool(), { path: '.', recursive: true }, ws.ctx());
    expect(listing.text).toContain('escape@');
    expect(listing.text).not.toContain('secret.txt');
    const grep = await call(createGrepTool(), { pattern: 'SECRET' }, ws.ctx());
    expect(grep.text).toBe('No matches found for pattern: SECRET');
    const found = await call(createFindFilesTool(), { query: 'secret' }, ws.ctx());
    expect(found.text).toBe('No files found');
  });

  it('a symlink that stays inside the workspace is followed', async () => {
    await symlink(join(ws.root, 'inside.txt'), join(ws.root, 'alias.txt'));
    const out = await call(createReadFileTool(), { path: 'alias.txt' }, ws.ctx());
    expect(out.isError).toBe(false);
    expect(out.text).toContain('1|hello');
  });

  it('a file swapped for an outside symlink after the check is refused at open (O_NOFOLLOW)', async () => {
    const scope = scopeFor({}, ws.root)!;
    const vetted = await resolveWorkspacePath(scope, 'inside.txt', 'read');
    // The race: between the check and the open, the file becomes a symlink to the secret.
    await rm(join(ws.root, 'inside.txt'));
    await symlink(join(ws.outside, 'secret.txt'), join(ws.root, 'inside.txt'));
    await expect(openWorkspaceFile(scope, vetted, 'inside.txt', 'read')).rejects.toBeInstanceOf(WorkspaceViolationError);
    await expect(openWorkspaceFile(scope, vetted, 'inside.txt', 'write')).rejects.toBeInstanceOf(WorkspaceViolationError);
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('a parent directory swapped for an outside symlink after the check is caught by the descriptor re-check', async () => {
    await ws.write('dir/secret.txt', 'inside copy\n');
    const scope = scopeFor({}, ws.root)!;
    const vetted = await resolveWorkspacePath(scope, 'dir/secret.txt', 'read');
    await rename(join(ws.root, 'dir'), join(ws.root, 'dir-old'));
    await symlink(ws.outside, join(ws.root, 'dir'));
    await expect(openWorkspaceFile(scope, vetted, 'dir/secret.txt', 'read')).rejects.toBeInstanceOf(WorkspaceViolationError);
    // A write through the swapped parent neither truncates the outside file nor leaves a new one.
    await expect(openWorkspaceFile(scope, vetted, 'dir/secret.txt', 'write')).rejects.toBeInstanceOf(WorkspaceViolationError);
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    const fresh = await resolveWorkspacePath(scope, 'dir-old/new.txt', 'write');
    await rm(join(ws.root, 'dir'));
    await rename(join(ws.root, 'dir-old'), join(ws.root, 'dir'));
    await symlink(ws.outside, join(ws.root, 'dir-old'));
    await expect(openWorkspaceFile(scope, fresh, 'dir-old/new.txt', 'write')).rejects.toBeInstanceOf(WorkspaceViolationError);
    await expect(stat(join(ws.outside, 'new.txt'))).rejects.toThrow();
  });
});

describe('unrestricted scope', () => {
  it('restrictToWorkspace: false lets tools read outside (explicit opt-out)', async () => {
    const out = await call(createReadFileTool({ restrictToWorkspace: false }), { path: '../outside/secret.txt' }, ws.ctx());
    expect(out.isError).toBe(false);
    expect(out.text).toContain('TOP SECRET');
  });

  it('extraReadDirs allow reading there but not writing', async () => {
    const options = { extraReadDirs: [ws.outside] };
    const read = await call(createReadFileTool(options), { path: join(ws.outside, 'secret.txt') }, ws.ctx());
    expect(read.text).toContain('TOP SECRET');
    expectViolation(await call(createWriteFileTool(options), { path: join(ws.outside, 'secret.txt'), content: 'x' }, ws.ctx()));
  });
});
