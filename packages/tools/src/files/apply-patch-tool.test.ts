import { chmod, mkdir, readFile, readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from './apply-patch-tool.js';
import { lineDiffStats } from './line-diff-stats.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

const patch = (args: Record<string, unknown>) => call(createApplyPatchTool(), args, ws.ctx());
const read = (rel: string) => readFile(join(ws.root, rel), 'utf8');

describe('apply_patch', () => {
  it('applies a multi-file change: replace, append to an existing file, create a new one', async () => {
    await ws.write('src/a.ts', 'export const a = 1;\nexport const b = 2;\n');
    await ws.write('notes.md', 'line one');
    const out = await patch({
      edits: [
        { path: 'src/a.ts', action: 'replace', old_text: 'export const b = 2;', new_text: 'export const b = 3;\nexport const c = 4;' },
        { path: 'notes.md', action: 'add', new_text: 'line two' },
        { path: 'docs/new.md', action: 'add', new_text: '# New\n\nText' },
      ],
    });
    expect(out).toEqual({ isError: false, text: 'Patch applied:\n- update src/a.ts (+2/-1)\n- update notes.md (+1/-0)\n- add docs/new.md (+3/-0)' });
    expect(await read('src/a.ts')).toBe('export const a = 1;\nexport const b = 3;\nexport const c = 4;\n');
    expect(await read('notes.md')).toBe('line one\nline two\n');
    expect(await read('docs/new.md')).toBe('# New\n\nText\n');
  });

  it('later edits of one file build on earlier ones', async () => {
    await ws.write('f.txt', 'alpha\nbeta\n');
    const out = await patch({ edits: [{ path: 'f.txt', action: 'replace', old_text: 'alpha', new_text: 'ALPHA' }, { path: 'f.txt', action: 'replace', old_text: 'ALPHA\nbeta', new_text: 'ALPHA\nBETA' }] });
    expect(out.isError).toBe(false);
    expect(await read('f.txt')).toBe('ALPHA\nBETA\n');
  });

  it('a failing edit in the middle leaves every file as it was (nothing created either)', async () => {
    await ws.write('a.txt', 'one\n');
    await ws.write('b.txt', 'two\n');
    const out = await patch({
      edits: [
        { path: 'a.txt', action: 'replace', old_text: 'one', new_text: 'ONE' },
        { path: 'new.txt', action: 'add', new_text: 'created' },
        { path: 'b.txt', action: 'replace', old_text: 'missing', new_text: 'x' },
        { path: 'a.txt', action: 'add', new_text: 'more' },
      ],
    });
    expect(out).toEqual({ isError: true, text: 'Error applying patch: old_text not found in b.txt' });
    expect(await read('a.txt')).toBe('one\n');
    expect(await read('b.txt')).toBe('two\n');
    expect((await readdir(ws.root)).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('a write that fails half-way puts back what the call had already written', async () => {
    await ws.write('a.txt', 'keep me\n');
    await mkdir(join(ws.root, 'locked'));
    await ws.write('locked/b.txt', 'b\n');
    await chmod(join(ws.root, 'locked', 'b.txt'), 0o444);
    await chmod(join(ws.root, 'locked'), 0o555);
    try {
      // As root a read-only mode does not stop writes; a directory in place of the file does.
      const out = await patch({ edits: [{ path: 'a.txt', action: 'replace', old_text: 'keep me', new_text: 'changed' }, { path: 'fresh.txt', action: 'add', new_text: 'new' }, { path: 'locked', action: 'add', new_text: 'x' }] });
      expect(out.isError).toBe(true);
      expect(out.text).toMatch(/^Error applying patch: /);
      expect(await read('a.txt')).toBe('keep me\n');
      await expect(stat(join(ws.root, 'fresh.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await chmod(join(ws.root, 'locked'), 0o755);
    }
  });

  it('dry_run validates and summarises without writing', async () => {
    await ws.write('a.txt', 'x\n');
    const out = await patch({ dry_run: true, edits: [{ path: 'a.txt', action: 'replace', old_text: 'x', new_text: 'y' }, { path: 'b.txt', action: 'add', new_text: 'b' }] });
    expect(out).toEqual({ isError: false, text: 'Patch dry-run succeeded:\n- update a.txt (+1/-1)\n- add b.txt (+1/-0)' });
    expect(await read('a.txt')).toBe('x\n');
    await expect(stat(join(ws.root, 'b.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps CRLF files CRLF and a BOM byte-exact', async () => {
    await ws.write('w.txt', '\ufeffone\r\ntwo\r\n');
    await patch({ edits: [{ path: 'w.txt', action: 'replace', old_text: 'two', new_text: 'TWO' }] });
    expect(await read('w.txt')).toBe('\ufeffone\r\nTWO\r\n');
  });

  it.each([
    [{ edits: [] }, 'Error applying patch: must provide edits'],
    [{ edits: ['x'] }, 'Error applying patch: each edit must be an object'],
    [{ edits: [{ action: 'add', new_text: 'x' }] }, 'Error applying patch: path required for edit'],
    [{ edits: [{ path: '  ', action: 'add', new_text: 'x' }] }, 'Error applying patch: patch path cannot be empty'],
    [{ edits: [{ path: 'a\u0000b', action: 'add', new_text: 'x' }] }, 'Error applying patch: patch path contains a null byte: "a\\u0000b"'],
    [{ edits: [{ path: 'a.txt' }] }, 'Error applying patch: action required for edit: a.txt'],
    [{ edits: [{ path: 'a.txt', action: 'delete' }] }, 'Error applying patch: unknown action: delete'],
    [{ edits: [{ path: 'a.txt', action: 'add' }] }, 'Error applying patch: new_text required for add: a.txt'],
    [{ edits: [{ path: 'a.txt', action: 'replace', new_text: 'x' }] }, 'Error applying patch: old_text required for replace: a.txt'],
    [{ edits: [{ path: 'a.txt', action: 'replace', old_text: 'x' }] }, 'Error applying patch: new_text required for replace: a.txt'],
    [{ edits: [{ path: 'nope.txt', action: 'replace', old_text: 'x', new_text: 'y' }] }, 'Error applying patch: file to update does not exist: nope.txt'],
    [{ edits: [{ path: 'dup.txt', action: 'replace', old_text: 'same', new_text: 'y' }] }, 'Error applying patch: old_text appears multiple times in dup.txt'],
    [{ edits: [{ path: 'bin.dat', action: 'add', new_text: 'y' }] }, 'Error applying patch: file is not UTF-8 text: bin.dat'],
    [{ edits: [{ path: 'dir', action: 'replace', old_text: 'a', new_text: 'b' }] }, 'Error applying patch: path to update is not a file: dir'],
  ])('bad input %j → %s, nothing written', async (args, message) => {
    await ws.write('dup.txt', 'same same\n');
    await ws.write('bin.dat', '');
    await (await import('node:fs/promises')).writeFile(join(ws.root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
    await mkdir(join(ws.root, 'dir'));
    const before = (await readdir(ws.root)).sort();
    const out = await patch(args);
    expect(out).toEqual({ isError: true, text: message });
    expect((await readdir(ws.root)).sort()).toEqual(before);
    expect(await read('dup.txt')).toBe('same same\n');
  });

  it('obeys the workspace guard: no path or symlink leads outside', async () => {
    await symlink(ws.outside, join(ws.root, 'out'));
    for (const path of ['../outside/secret.txt', join(ws.outside, 'secret.txt'), 'out/secret.txt', 'out/new.txt']) {
      const out = await patch({ edits: [{ path, action: 'add', new_text: 'pwned' }] });
      expect(out.isError).toBe(true);
      expect(out.text).toMatch(/outside/i);
    }
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(await readdir(ws.outside)).toEqual(['secret.txt']);
  });
});

describe('lineDiffStats', () => {
  it('counts like a line diff', () => {
    expect(lineDiffStats('a\nb\nc\n', 'a\nB\nc\n')).toEqual({ added: 1, deleted: 1 });
    expect(lineDiffStats('a\nb\n', 'a\nb\nc\nd\n')).toEqual({ added: 2, deleted: 0 });
    expect(lineDiffStats('a\r\nb\r\n', 'a\nb\n')).toEqual({ added: 0, deleted: 0 });
    expect(lineDiffStats('', '')).toEqual({ added: 0, deleted: 0 });
  });

  it('added − deleted is the change in line count, and identity is (0, 0)', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 30 }).map((l) => l.map((x) => `${x}\n`).join(''));
    fc.assert(
      fc.property(lines, lines, (x, y) => {
        const { added, deleted } = lineDiffStats(x, y);
        const count = (t: string) => (t === '' ? 0 : t.split('\n').length - 1);
        return added - deleted === count(y) - count(x) && added >= 0 && deleted >= 0 && (x !== y || (added === 0 && deleted === 0));
      }),
    );
  });
});
