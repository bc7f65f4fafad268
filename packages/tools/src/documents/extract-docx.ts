import type { OfficeArchive } from './office-zip.js';
import { OfficeDocumentError } from './office-zip.js';
import { streamXml } from './ooxml-xml.js';
import { TextCollector } from './text-collector.js';

const MAX_TABLE_CELLS = 100_000;
const MAX_TABLE_DEPTH = 8;

interface Table {
  firstRow: boolean;
  row: string[] | null;
  cell: string[] | null;
}

/**
 * DOCX text as the reference extracts it: body paragraphs (stripped) separated by blank lines;
 * a table's rows as tab-separated cells (a cell's paragraphs whitespace-collapsed and joined by
 * spaces, a nested table's rows inline with ` | `), the first row after a blank line. Bounded:
 * `maxChars`, 100,000 table cells, 8 levels of nesting (`OfficeDocumentError` beyond).
 */
export async function extractDocx(archive: OfficeArchive, maxChars: number): Promise<string> {
  if (!archive.names.includes('word/document.xml')) throw new OfficeDocumentError('invalid Office document: word/document.xml is missing');
  const collector = new TextCollector(maxChars);
  const tables: Table[] = [];
  let paragraph: string | null = null;
  let inText = false;
  let cells = 0;
  await streamXml(archive, 'word/document.xml', {
    open(name) {
      switch (name) {
        case 'w:p':
          paragraph = '';
          break;
        case 'w:t':
          inText = true;
          break;
        case 'w:tab':
          if (paragraph !== null) paragraph += '\t';
          break;
        case 'w:br':
        case 'w:cr':
          if (paragraph !== null) paragraph += '\n';
          break;
        case 'w:tbl':
          if (tables.length + 1 > MAX_TABLE_DEPTH) throw new OfficeDocumentError(`unsafe DOCX: table nesting exceeds ${MAX_TABLE_DEPTH} levels`);
          tables.push({ firstRow: true, row: null, cell: null });
          break;
        case 'w:tr':
          if (tables.length > 0) tables[tables.length - 1].row = [];
          break;
        case 'w:tc':
          if (tables.length > 0) {
            if (++cells > MAX_TABLE_CELLS) throw new OfficeDocumentError(`unsafe DOCX: document contains more than ${MAX_TABLE_CELLS} table cells`);
            tables[tables.length - 1].cell = [];
          }
          break;
        default:
      }
    },
    text(text) {
      if (inText && paragraph !== null) paragraph += text;
    },
    close(name) {
      const table = tables[tables.length - 1];
      switch (name) {
        case 'w:t':
          inText = false;
          break;
        case 'w:p': {
          const text = paragraph ?? '';
          paragraph = null;
          if (table?.cell) {
            const collapsed = text.split(/\s+/).filter(Boolean).join(' ');
            if (collapsed) table.cell.push(collapsed);
          } else if (!table) {
            const stripped = text.trim();
            if (stripped) collector.add(stripped, '\n\n');
          }
          break;
        }
        case 'w:tc':
          if (table?.row && table.cell) table.row.push(table.cell.join(' '));
          if (table) table.cell = null;
          break;
        case 'w:tr': {
          if (!table?.row) break;
          const row = table.row;
          table.row = null;
          if (!row.some((c) => c !== '')) break;
          const text = row.join('\t');
          if (tables.length === 1) {
            collector.add(text, table.firstRow ? '\n\n' : '\n');
            table.firstRow = false;
          } else {
            tables[tables.length - 2].cell?.push(text.replace(/\t/g, ' | '));
          }
          break;
        }
        case 'w:tbl':
          tables.pop();
          break;
        default:
      }
    },
    done: () => collector.full,
  });
  return collector.render();
}
