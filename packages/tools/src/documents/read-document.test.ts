import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadedModules } from '@nanobot-internal/test-support';
import { createReadFileTool } from '../files/read-file-tool.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { makeDocx, makeEncryptedPdf, makePdf, makePptx, makeXlsx, makeZipBomb, markZipEncrypted, p, tbl } from '../test-support/documents.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

async function put(name: string, data: Buffer): Promise<void> {
  await writeFile(join(ws.root, name), data);
}
const read = (args: Record<string, unknown>, options = {}) => call(createReadFileTool(options), args, ws.ctx());

describe('read_file on PDFs', () => {
  it('returns each page with text under its marker; blank pages skipped', async () => {
    await put('contract.pdf', await makePdf(['Contract between A and B', '', 'Clause 2: payment\nin 30 days']));
    const out = await read({ path: 'contract.pdf' });
    expect(out).toEqual({ isError: false, text: '--- Page 1 ---\nContract between A and B\n\n--- Page 3 ---\nClause 2: payment\nin 30 days' });
  });

  it('reads at most 20 pages a call and says how to continue; pages picks a range', async () => {
    await put('long.pdf', await makePdf(Array.from({ length: 45 }, (_, i) => `page text ${i + 1}`)));
    const first = await read({ path: 'long.pdf' });
    expect(first.text.startsWith('--- Page 1 ---\npage text 1\n\n')).toBe(true);
    expect(first.text).toContain('--- Page 20 ---\npage text 20');
    expect(first.text).not.toContain('Page 21');
    expect(first.text.endsWith("(Showing pages 1-20 of 45. Use pages='21-40' to continue.)")).toBe(true);
    const range = await read({ path: 'long.pdf', pages: '44-50' });
    expect(range.text).toBe('--- Page 44 ---\npage text 44\n\n--- Page 45 ---\npage text 45');
    const one = await read({ path: 'long.pdf', pages: '7' });
    expect(one.text).toBe("--- Page 7 ---\npage text 7\n\n(Showing pages 7-7 of 45. Use pages='8-27' to continue.)");
  });

  it.each(['0-3', '9-3', '46', 'x', '1-2-3'])('a bad page range %s is the reference error', async (pages) => {
    await put('long.pdf', await makePdf(Array.from({ length: 45 }, (_, i) => `p${i}`)));
    expect(await read({ path: 'long.pdf', pages })).toEqual({ isError: true, text: `Error: Invalid page range '${pages}'. Use format like '1-5'.` });
  });

  it('an encrypted PDF is a clear error', async () => {
    await put('locked.pdf', makeEncryptedPdf());
    const out = await read({ path: 'locked.pdf' });
    expect(out).toEqual({ isError: true, text: 'Error reading PDF: the PDF is encrypted (password-protected); it cannot be read.' });
  });

  it('a truncated or garbage PDF returns a result, never throws or hangs', async () => {
    const good = await makePdf(['alpha', 'beta', 'gamma']);
    await put('cut.pdf', good.subarray(0, Math.floor(good.length / 3)));
    await put('junk.pdf', Buffer.from('%PDF-1.7\nthis is not a pdf at all\n'));
    const cut = await read({ path: 'cut.pdf' });
    expect(cut.thrown).toBeUndefined();
    if (cut.isError) expect(cut.text).toMatch(/^Error reading PDF: /);
    const junk = await read({ path: 'junk.pdf' });
    expect(junk.thrown).toBeUndefined();
    expect(junk.isError || junk.text.startsWith('(PDF has no extractable text')).toBe(true);
  });
});

describe('read_file on Office documents', () => {
  it('DOCX: headings and paragraphs separated by blank lines, tables as tab-separated rows', async () => {
    const inner = tbl([['i1', 'i2'], ['i3', 'i4']]);
    await put('report.docx', makeDocx([
      p('Quarterly report', 'Heading1'),
      p('  Revenue grew.  '),
      p(''),
      tbl([['Region', 'Q1', 'Q2'], ['North', '10', '12'], ['', '', ''], ['Multi   word\tcell', ['a', 'b'], [inner]]]),
      p('Summary', 'Heading2'),
      p('Tab\tinside'),
    ]));
    const out = await read({ path: 'report.docx' });
    expect(out).toEqual({
      isError: false,
      text: 'Quarterly report\n\nRevenue grew.\n\nRegion\tQ1\tQ2\nNorth\t10\t12\nMulti word cell\ta b\ti1 | i2 i3 | i4\n\nSummary\n\nTab\tinside',
    });
  });

  it('XLSX: two sheets, each with its header; numbers, booleans, padding to the dimension', async () => {
    await put('book.xlsx', makeXlsx({
      Sales: [['Item', 'Qty', 'Price'], ['Tea', 3, 2.5], ['Cake', 1, null], [null, null, null], ['Paid', true, 0.1]],
      Empty: [[null]],
      Notes: [['just text']],
    }));
    const out = await read({ path: 'book.xlsx' });
    expect(out).toEqual({ isError: false, text: '--- Sheet: Sales ---\nItem\tQty\tPrice\nTea\t3\t2.5\nCake\t1\t\nPaid\tTrue\t0.1\n\n--- Sheet: Notes ---\njust text' });
  });

  it('PPTX: slides in order with shape and table text, and speaker notes', async () => {
    await put('deck.pptx', makePptx([
      { shapes: ['Launch plan', ['Goals:', 'ship v2']], notes: 'Mention the budget.' },
      { shapes: [] },
      { shapes: ['Timeline'], table: [['Phase', 'Date'], ['Beta', ''], ['GA', 'May']] },
    ]));
    const out = await read({ path: 'deck.pptx' });
    expect(out).toEqual({ isError: false, text: '--- Slide 1 ---\nLaunch plan\nGoals:\nship v2\nNotes:\nMention the budget.\n\n--- Slide 3 ---\nTimeline\nPhase\tDate\nBeta\nGA\tMay' });
  });

  it('an empty document says it has no text', async () => {
    await put('blank.docx', makeDocx([p('')]));
    expect(await read({ path: 'blank.docx' })).toEqual({ isError: false, text: '(DOCX has no extractable text: blank.docx)' });
  });

  it('truncated, encrypted, bomb and oversized containers are clear errors', async () => {
    const docx = makeDocx([p('hello')]);
    await put('cut.docx', docx.subarray(0, docx.length - 30));
    await put('locked.xlsx', markZipEncrypted(makeXlsx({ S: [['x']] })));
    await put('bomb.docx', makeZipBomb(130 * 1024 * 1024));
    await put('notzip.pptx', Buffer.from('PK but not really'));
    expect(await read({ path: 'cut.docx' })).toMatchObject({ isError: true, text: expect.stringMatching(/^Error reading \.DOCX file: \[error: invalid Office document: /) });
    expect(await read({ path: 'locked.xlsx' })).toEqual({ isError: true, text: 'Error reading .XLSX file: [error: encrypted Office documents are not supported]' });
    expect(await read({ path: 'bomb.docx' })).toEqual({ isError: true, text: 'Error reading .DOCX file: [error: Office document contains an oversized internal file]' });
    expect(await read({ path: 'notzip.pptx' })).toMatchObject({ isError: true, text: expect.stringMatching(/^Error reading \.PPTX file: \[error: invalid Office document/) });
    await put('big.xlsx', Buffer.alloc(3 * 1024 * 1024, 1));
    expect(await read({ path: 'big.xlsx' }, { documents: { maxOfficeBytes: 2 * 1024 * 1024 } })).toEqual({ isError: true, text: 'Error reading .XLSX file: [error: file exceeds 2 MB limit]' });
  });

  it('output is capped; a parse past its time limit is an error, not a hang', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => p(`paragraph number ${i} with some filler text to make it longer`));
    await put('huge.docx', makeDocx(many));
    const capped = await read({ path: 'huge.docx' });
    expect(capped.isError).toBe(false);
    expect(capped.text.length).toBeLessThanOrEqual(128_000 + 60);
    expect(capped.text.endsWith('\n\n(Document text truncated at ~128K chars)')).toBe(true);
    const slow = await read({ path: 'huge.docx' }, { documents: { timeoutMs: 1 } });
    expect(slow).toEqual({ isError: true, text: 'Error reading .DOCX file: [error: failed to extract DOCX: parsing took longer than 0 s]' });
  });
});

describe('document parsers load lazily', () => {
  it('importing @nanobot/tools loads neither pdf.js nor the zip and XML parsers', () => {
    const urls = loadedModules(join(import.meta.dirname, '..', '..'), "const m = await import('@nanobot/tools'); if (typeof m.createReadFileTool !== 'function') process.exit(3);");
    expect(urls.some((u) => u.includes('/@nanobot/tools/') || u.includes('/packages/tools/src/'))).toBe(true);
    expect(urls.filter((u) => /pdfjs-dist|\/yauzl\/|\/sax\//.test(u))).toEqual([]);
  });
});
