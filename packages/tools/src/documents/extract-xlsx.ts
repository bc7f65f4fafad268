import type { OfficeArchive } from './office-zip.js';
import { OfficeDocumentError } from './office-zip.js';
import { readRelationships, streamXml } from './ooxml-xml.js';
import { TextCollector } from './text-collector.js';

function columnIndex(ref: string | undefined): number {
  const letters = /^[A-Z]+/.exec(ref ?? '')?.[0];
  if (!letters) return -1;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

async function sharedStrings(archive: OfficeArchive): Promise<string[]> {
  const strings: string[] = [];
  if (!archive.names.includes('xl/sharedStrings.xml')) return strings;
  let current: string | null = null;
  let inText = false;
  let inPhonetic = false;
  await streamXml(archive, 'xl/sharedStrings.xml', {
    open(name) {
      if (name === 'si') current = '';
      else if (name === 'rPh') inPhonetic = true;
      else if (name === 't' && !inPhonetic) inText = true;
    },
    text(text) {
      if (inText && current !== null) current += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') {
        strings.push(current ?? '');
        current = null;
      }
    },
  });
  return strings;
}

function cellValue(type: string | undefined, raw: string, strings: readonly string[]): string {
  switch (type) {
    case 's':
      return strings[Number(raw)] ?? '';
    case 'b':
      return raw === '1' ? 'True' : 'False';
    case 'str':
    case 'inlineStr':
    case 'e':
      return raw;
    default: {
      // Numbers print as Python's str() of the int or float openpyxl reads.
      if (raw === '') return '';
      const n = Number(raw);
      if (!Number.isFinite(n)) return raw;
      return Number.isInteger(n) && !/[.eE]/.test(raw) ? String(n) : Number.isInteger(n) ? `${n}.0` : String(n);
    }
  }
}

/**
 * XLSX text as the reference extracts it: per sheet with content a `--- Sheet: <name> ---`
 * header, then each non-blank row as tab-separated cached values (formulas' last results),
 * rows padded to the sheet's declared dimension. Shared and inline strings, numbers, booleans
 * and error values are read; dates stay serial numbers. Streams each sheet and stops at `maxChars`.
 */
export async function extractXlsx(archive: OfficeArchive, maxChars: number): Promise<string> {
  if (!archive.names.includes('xl/workbook.xml')) throw new OfficeDocumentError('invalid Office document: xl/workbook.xml is missing');
  const sheets: { name: string; rid: string }[] = [];
  await streamXml(archive, 'xl/workbook.xml', {
    open(name, attrs) {
      if (name === 'sheet' && attrs.name !== undefined) sheets.push({ name: attrs.name, rid: attrs['r:id'] ?? '' });
    },
  });
  const rels = await readRelationships(archive, 'xl/_rels/workbook.xml.rels', 'xl/');
  const strings = await sharedStrings(archive);
  const collector = new TextCollector(maxChars);
  for (const sheet of sheets) {
    const part = rels.get(sheet.rid);
    if (!part || !archive.names.includes(part)) continue;
    let minCol = -1;
    let maxCol = -1;
    let row: string[] | null = null;
    let cellType: string | undefined;
    let cellCol = -1;
    let value: string | null = null;
    let inValue = false;
    let wroteHeader = false;
    await streamXml(archive, part, {
      open(name, attrs) {
        if (name === 'dimension' && attrs.ref) {
          const [from, to] = attrs.ref.split(':');
          minCol = columnIndex(from);
          maxCol = columnIndex(to ?? from);
        } else if (name === 'row') row = [];
        else if (name === 'c' && row) {
          cellType = attrs.t;
          cellCol = columnIndex(attrs.r);
          if (cellCol < 0) cellCol = row.length + Math.max(0, minCol);
          value = '';
        } else if ((name === 'v' || name === 't') && value !== null) inValue = true;
      },
      text(text) {
        if (inValue && value !== null) value += text;
      },
      close(name) {
        if (name === 'v' || name === 't') inValue = false;
        else if (name === 'c' && row && value !== null) {
          const offset = cellCol - Math.max(0, minCol);
          while (row.length < offset) row.push('');
          row[offset] = cellValue(cellType, value, strings);
          value = null;
        } else if (name === 'row' && row) {
          const width = maxCol >= 0 ? maxCol - Math.max(0, minCol) + 1 : row.length;
          while (row.length < width) row.push('');
          const text = row.join('\t');
          row = null;
          if (text.trim() === '' || collector.full) return;
          if (!wroteHeader) {
            if (!collector.add(`--- Sheet: ${sheet.name} ---`, '\n\n')) return;
            wroteHeader = true;
          }
          collector.add(text, '\n');
        }
      },
      done: () => collector.full,
    });
    if (collector.full) break;
  }
  return collector.render();
}
