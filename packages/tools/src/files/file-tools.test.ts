import { mkfifo } from '../test-support/mkfifo.js';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditFileTool } from './edit-file-tool.js';
import { createFindFilesTool } from './find-files-tool.js';
import { createGrepTool } from './grep-tool.js';
import { createListDirTool } from './list-dir-tool.js';
import { createReadFileTool } from './read-file-tool.js';
import { createReadTracker } from './read-tracker.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { createWriteFileTool } from './write-file-tool.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

describe('read_file', () => {
  it('numbers lines as LINE|CONTENT and reports the end of file', async () => {
    await ws.write('a.txt', 'one\ntwo\r\nthree\n');
    const out = await call(createReadFileTool(), { path: 'a.txt' }, ws.ctx());
    expect(out.text).toBe('1|one\n2|two\n3|three\n\n(End of file — 3 lines total)');
  });

  it('pages with offset and limit and says how to continue', async () => {
    await ws.write('n.txt', Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n'));
    const out = await call(createReadFileTool(), { path: 'n.txt', offset: 3, limit: 2 }, ws.ctx());
    expect(out.text).toBe('3|l3\n4|l4\n\n(Showing lines 3-4 of 10. Use offset=5 to continue.)');
    const beyond = await call(createReadFileTool(), { path: 'n.txt', offset: 11 }, ws.ctx());
    expect(beyond).toMatchObject({ isError: true, text: 'Error: offset 11 is beyond end of file (10 lines)' });
  });

  it('caps output characters and file size', async () => {
    await ws.write('big.txt', Array.from({ length: 100 }, () => 'x'.repeat(50)).join('\n'));
    const capped = await call(createReadFileTool({ maxOutputChars: 200 }), { path: 'big.txt' }, ws.ctx());
    expect(capped.text).toContain('(Showing lines 1-3 of 100. Use offset=4 to continue.)');
    const huge = await call(createReadFileTool({ maxFileBytes: 100 }), { path: 'big.txt' }, ws.ctx());
    expect(huge.isError).toBe(true);
    expect(huge.text).toMatch(/^Error: File too large/);
  });

  it('a single line longer than the cap is cut, and paging still advances', async () => {
    await ws.write('wide.txt', `${'w'.repeat(500)}\nnext`);
    const out = await call(createReadFileTool({ maxOutputChars: 100 }), { path: 'wide.txt' }, ws.ctx());
    expect(out.text).toContain('Use offset=2 to continue.');
  });

  it('clear failures: missing, directory, empty, binary, device, FIFO', async () => {
    await ws.write('empty.txt', '');
    await ws.write('bin.dat', 'ab\0cd');
    await ws.write('d/x', 'x');
    await mkfifo(join(ws.root, 'pipe'));
    const read = (path: string) => call(createReadFileTool({ restrictToWorkspace: false }), { path }, ws.ctx());
    expect((await read('nope.txt')).text).toBe('Error: File not found: nope.txt');
    expect((await read('d')).text).toBe('Error: Not a file: d (use list_dir for directories)');
    expect((await read('empty.txt')).text).toBe('(Empty file: empty.txt)');
    expect((await read('bin.dat')).text).toMatch(/binary file/);
    expect((await read('/dev/zero')).text).toBe('Error: Refusing to read device path: /dev/zero');
    expect((await read('pipe')).text).toBe('Error: Not a regular file: pipe');
  });

  it('returns images as native image blocks, with a size cap', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    await writeFile(join(ws.root, 'dot.png'), png);
    const out = await call(createReadFileTool(), { path: 'dot.png' }, ws.ctx());
    expect(JSON.parse(out.text)).toEqual([
      { type: 'text', text: `Image: dot.png (image/png, ${png.length} bytes)` },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    ]);
    const big = await call(createReadFileTool({ maxImageBytes: 10 }), { path: 'dot.png' }, ws.ctx());
    expect(big.text).toMatch(/^Error: Image too large/);
  });

  it('with a read tracker, an identical re-read of an unchanged file is short-cut unless forced', async () => {
    const tool = createReadFileTool({ readTracker: createReadTracker() });
    await ws.write('t.txt', 'v1');
    const a = ws.ctx({ sessionKey: 'a' });
    expect((await call(tool, { path: 't.txt' }, a)).text).toContain('1|v1');
    expect((await call(tool, { path: 't.txt' }, a)).text).toBe('[File unchanged since last read: t.txt]');
    expect((await call(tool, { path: 't.txt', force: true }, a)).text).toContain('1|v1');
    expect((await call(tool, { path: 't.txt' }, ws.ctx({ sessionKey: 'b' }))).text).toContain('1|v1');
    expect((await call(tool, { path: 't.txt', offset: 1, limit: 5 }, a)).text).toContain('1|v1');
    await ws.write('t.txt', 'v2 longer');
    expect((await call(tool, { path: 't.txt' }, a)).text).toContain('1|v2 longer');
    expect((await call(createReadFileTool(), { path: 't.txt' }, a)).text).toContain('1|v2 longer');
  });

  it('a file whose text starts with "Error:" is still a successful read', async () => {
    await ws.write('e.txt', 'Error: not really');
    const out = await call(createReadFileTool(), { path: 'e.txt' }, ws.ctx());
    expect(out.isError).toBe(false);
  });
});

describe('write_file', () => {
  it('creates parents and reports characters written', async () => {
    const out = await call(createWriteFileTool(), { path: 'deep/er/f.txt', content: 'héllo 👋' }, ws.ctx());
    expect(out.text).toBe('Successfully wrote 7 characters to deep/er/f.txt');
    expect(await readFile(join(ws.root, 'deep/er/f.txt'), 'utf8')).toBe('héllo 👋');
  });

  it('overwrites (truncates) an existing longer file', async () => {
    await ws.write('f.txt', 'a much longer original');
    await call(createWriteFileTool(), { path: 'f.txt', content: 'short' }, ws.ctx());
    expect(await readFile(join(ws.root, 'f.txt'), 'utf8')).toBe('short');
  });

  it('refuses to write over a directory', async () => {
    await ws.write('dir/x', '1');
    const out = await call(createWriteFileTool(), { path: 'dir', content: 'x' }, ws.ctx());
    expect(out.isError).toBe(true);
  });
});

describe('edit_file', () => {
  const edit = (args: Record<string, unknown>) => call(createEditFileTool(), { path: 'c.ts', ...args }, ws.ctx());

  it('replaces an exact unique match', async () => {
    await ws.write('c.ts', 'const a = 1;\nconst b = 2;\n');
    expect((await edit({ old_text: 'b = 2', new_text: 'b = 3' })).text).toBe('Successfully edited c.ts (1 replacement)');
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('not found: error with a pointer, file untouched', async () => {
    await ws.write('c.ts', 'function f() {\n  return 1;\n}\n');
    const out = await edit({ old_text: 'function f() {\n  return 2;\n}', new_text: 'x' });
    expect(out.isError).toBe(true);
    expect(out.text).toBe('Error: old_text not found in c.ts. Its first line appears at line 1; the lines after it differ. Read the file again and copy old_text exactly.');
    const none = await edit({ old_text: 'zzz', new_text: 'x' });
    expect(none.text).toBe('Error: old_text not found in c.ts. No similar text found. Read the file again and copy old_text exactly.');
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('function f() {\n  return 1;\n}\n');
  });

  it('multiple matches: error listing lines unless disambiguated', async () => {
    await ws.write('c.ts', 'x = 1\ny = 2\nx = 1\nx = 1\n');
    const out = await edit({ old_text: 'x = 1', new_text: 'x = 9' });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('old_text matches 3 times in c.ts (lines 1, 3, 4)');
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('x = 1\ny = 2\nx = 1\nx = 1\n');
    await edit({ old_text: 'x = 1', new_text: 'x = 2', occurrence: 2 });
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('x = 1\ny = 2\nx = 2\nx = 1\n');
    await edit({ old_text: 'x = 1', new_text: 'x = 4', line_hint: 4 });
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('x = 1\ny = 2\nx = 2\nx = 4\n');
    expect((await edit({ old_text: 'x = ', new_text: 'v = ', replace_all: true })).text).toContain('(3 replacements)');
  });

  it('expected_replacements guards the count', async () => {
    await ws.write('c.ts', 'a a a');
    const out = await edit({ old_text: 'a', new_text: 'b', expected_replacements: 2 });
    expect(out.text).toBe('Error: expected 2 replacement(s) but 3 would be made in c.ts (old_text matches 3 time(s)). Nothing was changed.');
    expect((await edit({ old_text: 'a', new_text: 'b', expected_replacements: 3 })).isError).toBe(false);
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('b b b');
  });

  it('tolerates indentation and curly quotes, keeps CRLF line endings', async () => {
    await ws.write('c.ts', 'if (x) {\r\n    say("hi");\r\n}\r\n');
    const out = await edit({ old_text: 'if (x) {\n  say(“hi”);\n}', new_text: 'if (y) {\n  say("bye");\n}' });
    expect(out.isError).toBe(false);
    expect(await readFile(join(ws.root, 'c.ts'), 'utf8')).toBe('if (y) {\r\n  say("bye");\r\n}\r\n');
  });

  it('rejects empty and no-op edits and missing files', async () => {
    await ws.write('c.ts', 'x');
    expect((await edit({ old_text: '', new_text: 'y' })).text).toMatch(/old_text must not be empty/);
    expect((await edit({ old_text: 'x', new_text: 'x' })).text).toMatch(/identical/);
    expect((await call(createEditFileTool(), { path: 'no.ts', old_text: 'a', new_text: 'b' }, ws.ctx())).text).toBe('Error: File not found: no.ts');
  });
});

describe('list_dir', () => {
  beforeEach(async () => {
    await ws.write('b.txt', '');
    await ws.write('a/one.txt', '');
    await ws.write('node_modules/pkg/index.js', '');
    await ws.write('.git/HEAD', '');
  });

  it('lists sorted entries, marks directories, skips noise', async () => {
    expect((await call(createListDirTool(), { path: '.' }, ws.ctx())).text).toBe('a/\nb.txt');
    expect((await call(createListDirTool(), { path: '.', recursive: true }, ws.ctx())).text).toBe('a/\na/one.txt\nb.txt');
  });

  it('caps entries with the truncation note; empty and missing directories', async () => {
    expect((await call(createListDirTool(), { path: '.', recursive: true, max_entries: 1 }, ws.ctx())).text).toBe(
      'a/\n\n(truncated, showing first 1 of 3 entries)',
    );
    await ws.write('e/.keep', '');
    expect((await call(createListDirTool(), { path: 'nope' }, ws.ctx())).text).toBe('Error: Directory not found: nope');
    expect((await call(createListDirTool(), { path: 'b.txt' }, ws.ctx())).text).toBe('Error: Not a directory: b.txt');
  });

  it('marks symlinks without following them', async () => {
    await symlink(join(ws.root, 'a'), join(ws.root, 'link'));
    expect((await call(createListDirTool(), { path: '.', recursive: true }, ws.ctx())).text).toBe('a/\na/one.txt\nb.txt\nlink@');
  });
});

describe('find_files', () => {
  beforeEach(async () => {
    await ws.write('src/app.ts', '');
    await ws.write('src/app.test.ts', '');
    await ws.write('src/util.js', '');
    await ws.write('docs/App.md', '');
    await ws.write('dist/app.ts', '');
  });
  const find = (args: Record<string, unknown>) => call(createFindFilesTool(), args, ws.ctx());

  it('by name fragment, glob, type', async () => {
    expect((await find({ query: 'app' })).text).toBe('docs/App.md\nsrc/app.test.ts\nsrc/app.ts');
    expect((await find({ glob: '*.test.ts' })).text).toBe('src/app.test.ts');
    expect((await find({ glob: 'src/*.js' })).text).toBe('src/util.js');
    expect((await find({ type: 'ts' })).text).toBe('src/app.test.ts\nsrc/app.ts');
    expect((await find({ query: 'src', include_dirs: true })).text).toBe('src/');
    expect((await find({ query: 'zzz' })).text).toBe('No files found');
  });

  it('paginates with the reference note', async () => {
    expect((await find({ head_limit: 2 })).text).toBe('docs/App.md\nsrc/app.test.ts\n\n(pagination: limit=2, offset=2)');
    expect((await find({ head_limit: 2, offset: 2 })).text).toBe('src/app.ts\nsrc/util.js');
  });
});

describe('grep', () => {
  beforeEach(async () => {
    await ws.write('a.py', 'import os\nprint("TODO one")\nx = 1\n');
    await ws.write('b.ts', '// todo two\nconst y = 2;\n');
    await ws.write('bin.dat', 'TODO\0binary');
    await ws.write('node_modules/m/i.js', 'TODO hidden');
  });
  const grep = (args: Record<string, unknown>) => call(createGrepTool(), args, ws.ctx());

  it('files_with_matches by default; skips binary and noise', async () => {
    expect((await grep({ pattern: 'TODO' })).text).toBe('a.py');
    expect((await grep({ pattern: 'todo', case_insensitive: true })).text).toBe('a.py\nb.ts');
  });

  it('content mode with line numbers and context; count mode', async () => {
    expect((await grep({ pattern: 'TODO', output_mode: 'content' })).text).toBe('a.py:2:print("TODO one")');
    expect((await grep({ pattern: 'TODO', output_mode: 'content', context_before: 1, context_after: 1 })).text).toBe(
      'a.py-1-import os\na.py:2:print("TODO one")\na.py-3-x = 1',
    );
    expect((await grep({ pattern: '\\d', output_mode: 'count' })).text).toBe('a.py:1\nb.ts:1');
  });

  it('literal search, type/glob filters, explicit file, bad regex', async () => {
    expect((await grep({ pattern: '("', fixed_strings: true })).text).toBe('a.py');
    expect((await grep({ pattern: '=', type: 'ts' })).text).toBe('b.ts');
    expect((await grep({ pattern: '=', glob: '*.py' })).text).toBe('a.py');
    expect((await grep({ pattern: 'os', path: 'a.py', output_mode: 'content' })).text).toBe('a.py:1:import os');
    const bad = await grep({ pattern: '(' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Error: Invalid regex pattern/);
    expect((await grep({ pattern: 'nothing-here' })).text).toBe('No matches found for pattern: nothing-here');
  });

  it('a catastrophic (ReDoS) pattern is interrupted instead of freezing the process', async () => {
    await ws.write('evil.txt', `${'a'.repeat(60)}b\n`);
    const out = await call(createGrepTool({ regexTimeoutMs: 100 }), { pattern: '(a+)+$', path: 'evil.txt' }, ws.ctx());
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^Error: grep pattern took longer than 100 ms to match/);
  });
});
