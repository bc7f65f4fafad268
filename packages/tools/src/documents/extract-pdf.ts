import { TextCollector } from './text-collector.js';

/** A page range that does not fit the document (`pages: "9-3"`, `"x"`, beyond the last page). */
export class PdfPageRangeError extends Error {}

/** What `extractPdfPages` read: text of pages `start..end` (0-based, inclusive) of `totalPages`. */
export interface PdfExtraction {
  text: string;
  totalPages: number;
  start: number;
  end: number;
}

/** Options of `extractPdfPages`. */
export interface PdfExtractOptions {
  /** `"3"` or `"2-5"`, 1-based (default: from the first page). */
  pages?: string | undefined;
  maxPages: number;
  maxChars: number;
  signal?: AbortSignal;
}

function parseRange(pages: string | undefined, total: number): [number, number] {
  if (!pages) return [0, total - 1];
  const values = pages.trim().split('-');
  if (values.length !== 1 && values.length !== 2) throw new PdfPageRangeError(`invalid page range: ${pages}`);
  const start = /^\s*\d+\s*$/.test(values[0]) ? Number(values[0]) : NaN;
  const end = /^\s*\d+\s*$/.test(values[values.length - 1]) ? Number(values[values.length - 1]) : NaN;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start || start > total) throw new PdfPageRangeError(`invalid page range: ${pages}`);
  return [start - 1, Math.min(end, total) - 1];
}

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

/**
 * Text of at most `maxPages` pages of a PDF, each as `--- Page N ---` and its text (blank pages
 * skipped), bounded by `maxChars`, through Mozilla's pdf.js (loaded on first use: it is large).
 * Throws `PdfPageRangeError` for a bad `pages`, and pdf.js's errors (`PasswordException` for an
 * encrypted file, `InvalidPDFException` for a broken one).
 */
export async function extractPdfPages(data: Uint8Array, options: PdfExtractOptions): Promise<PdfExtraction> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js takes ownership of the buffer it is given: hand it a copy.
  const task = pdfjs.getDocument({ data: new Uint8Array(data), useSystemFonts: false, disableFontFace: true, verbosity: 0, stopAtErrors: false });
  const abort = (): void => void task.destroy();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    const doc = await task.promise;
    const total = doc.numPages;
    if (total === 0) return { text: '', totalPages: 0, start: 0, end: -1 };
    const [start, last] = parseRange(options.pages, total);
    let end = Math.min(last, start + options.maxPages - 1);
    const collector = new TextCollector(options.maxChars);
    for (let index = start; index <= end; index++) {
      if (options.signal?.aborted) throw new Error('aborted');
      const page = await doc.getPage(index + 1);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItemLike[]) {
        if (typeof item.str === 'string') text += item.str;
        if (item.hasEOL) text += '\n';
      }
      page.cleanup();
      text = text.trim();
      if (text && !collector.add(`--- Page ${index + 1} ---\n${text}`, '\n\n')) {
        end = index;
        break;
      }
    }
    return { text: collector.render(), totalPages: total, start, end };
  } finally {
    options.signal?.removeEventListener('abort', abort);
    await task.destroy();
  }
}
