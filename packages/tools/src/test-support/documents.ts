// Real documents built in the tests: PDFs through pdf-lib, OOXML containers (DOCX, XLSX, PPTX)
// zipped by fflate from hand-written parts in the shapes Office writes.
import { strToU8, zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A PDF with one page per entry; `''` makes a page without text. */
export async function makePdf(pages: readonly string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  }
  return Buffer.from(await doc.save());
}

/** A hand-built PDF whose trailer names a Standard security handler with a non-empty user password. */
export function makeEncryptedPdf(): Buffer {
  const hex = (n: number) => 'A1B2C3D4'.repeat(n / 4);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
    '<< /Length 8 >>\nstream\n(secret)\nendstream',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -4 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 5 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const xml = (s: string) => strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${s}`);
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function zip(files: Record<string, Uint8Array>, types: string): Buffer {
  const all: Zippable = { '[Content_Types].xml': xml(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">${types}</Types>`), ...files };
  return Buffer.from(zipSync(all, { level: 6 }));
}

/** A DOCX paragraph (`style` e.g. `Heading1`), tabs kept. */
export function p(text: string, style?: string): string {
  const props = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : '';
  const runs = text.split('\t').map((t) => `<w:r><w:t xml:space="preserve">${t.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r>`).join('<w:r><w:tab/></w:r>');
  return `<w:p>${props}${runs}</w:p>`;
}

/** A DOCX table of rows of cells; a cell is paragraph texts or inner table XML. */
export function tbl(rows: readonly (readonly (string | string[])[])[]): string {
  const cell = (c: string | string[]) => `<w:tc><w:tcPr/>${(Array.isArray(c) ? c : [c]).map((x) => (x.startsWith('<w:tbl>') ? x + p('') : p(x))).join('')}</w:tc>`;
  return `<w:tbl><w:tblPr/>${rows.map((r) => `<w:tr>${r.map(cell).join('')}</w:tr>`).join('')}</w:tbl>`;
}

/** A DOCX whose body is `blocks` (from `p` and `tbl`). */
export function makeDocx(blocks: readonly string[]): Buffer {
  return zip(
    {
      '_rels/.rels': xml('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
      'word/document.xml': xml(`<w:document ${W}><w:body>${blocks.join('')}<w:sectPr/></w:body></w:document>`),
    },
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
  );
}

type CellValue = string | number | boolean | null;

/** An XLSX with one worksheet per entry; strings go to the shared-string table. */
export function makeXlsx(sheets: Record<string, readonly (readonly CellValue[])[]>): Buffer {
  const strings: string[] = [];
  const col = (i: number) => String.fromCharCode(65 + i);
  const files: Record<string, Uint8Array> = {};
  const names = Object.keys(sheets);
  names.forEach((name, s) => {
    const rows = sheets[name];
    const width = Math.max(1, ...rows.map((r) => r.length));
    const cells = rows
      .map((row, r) => `<row r="${r + 1}">${row
        .map((v, c) => {
          if (v === null) return '';
          const ref = `${col(c)}${r + 1}`;
          if (typeof v === 'string') {
            strings.push(v);
            return `<c r="${ref}" t="s"><v>${strings.length - 1}</v></c>`;
          }
          if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
          return `<c r="${ref}"><v>${v}</v></c>`;
        })
        .join('')}</row>`)
      .join('');
    files[`xl/worksheets/sheet${s + 1}.xml`] = xml(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:${col(width - 1)}${rows.length}"/><sheetData>${cells}</sheetData></worksheet>`);
  });
  const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  files['xl/workbook.xml'] = xml(`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ${R}><sheets>${names.map((n, i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`);
  files['xl/_rels/workbook.xml.rels'] = xml(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${names.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`);
  files['xl/sharedStrings.xml'] = xml(`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`);
  return zip(files, '<Default Extension="xml" ContentType="application/xml"/>');
}

/** A PPTX: per slide its shapes' texts (a string array is one shape's paragraphs), a table, and notes. */
export function makePptx(slides: readonly { shapes: readonly (string | readonly string[])[]; table?: readonly (readonly string[])[]; notes?: string }[]): Buffer {
  const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const shape = (paras: readonly string[], ph = '') => `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paras.map((t) => `<a:p><a:r><a:t>${t}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`;
  const files: Record<string, Uint8Array> = {};
  slides.forEach((slide, i) => {
    const n = i + 1;
    const table = slide.table
      ? `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="t"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>${slide.table.map((r) => `<a:tr h="1">${r.map((c) => `<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>${c}</a:t></a:r></a:p></a:txBody></a:tc>`).join('')}</a:tr>`).join('')}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
      : '';
    files[`ppt/slides/slide${n}.xml`] = xml(`<p:sld ${A}><p:cSld><p:spTree>${slide.shapes.map((s) => shape(typeof s === 'string' ? [s] : s)).join('')}${table}</p:spTree></p:cSld></p:sld>`);
    if (slide.notes !== undefined) {
      files[`ppt/slides/_rels/slide${n}.xml.rels`] = xml(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide${n}.xml"/></Relationships>`);
      files[`ppt/notesSlides/notesSlide${n}.xml`] = xml(`<p:notes ${A}><p:cSld><p:spTree>${shape([], '<p:ph type="sldImg"/>')}${shape([slide.notes], '<p:ph type="body" idx="1"/>')}${shape([String(n)], '<p:ph type="sldNum" idx="5"/>')}</p:spTree></p:cSld></p:notes>`);
    }
  });
  files['ppt/presentation.xml'] = xml(`<p:presentation ${A}><p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 10}"/>`).join('')}</p:sldIdLst></p:presentation>`);
  files['ppt/_rels/presentation.xml.rels'] = xml(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${slides.map((_, i) => `<Relationship Id="rId${i + 10}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide${i + 1}.xml"/>`).join('')}</Relationships>`);
  return zip(files, '<Default Extension="xml" ContentType="application/xml"/>');
}

/** Sets the "encrypted" bit on every member of a zip (local and central headers). */
export function markZipEncrypted(data: Buffer): Buffer {
  const out = Buffer.from(data);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = out.readUInt32LE(i);
    if (sig === 0x04034b50) out.writeUInt16LE(out.readUInt16LE(i + 6) | 1, i + 6);
    else if (sig === 0x02014b50) out.writeUInt16LE(out.readUInt16LE(i + 8) | 1, i + 8);
  }
  return out;
}

/** A zip whose single member expands to `bytes` zeros (a bomb, compressed to a few hundred KB). */
export function makeZipBomb(bytes: number, name = 'word/document.xml'): Buffer {
  return Buffer.from(zipSync({ [name]: new Uint8Array(bytes) }, { level: 1 }));
}
