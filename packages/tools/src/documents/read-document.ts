import { extname } from 'node:path';
import type { Outcome } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';

/** Extensions `read_file` reads as documents rather than as text. */
export const DOCUMENT_EXTENSIONS: ReadonlySet<string> = new Set(['.pdf', '.docx', '.xlsx', '.pptx']);

/** Bounds of document reading (the reference's, plus a wall-clock limit). */
export interface DocumentLimits {
  /** PDF pages per call (20). */
  maxPdfPages: number;
  /** Characters returned (128,000). */
  maxChars: number;
  /** Office files larger than this are refused before unzipping (50 MiB). */
  maxOfficeBytes: number;
  /** A parse still running after this is abandoned with an error (60 s). */
  timeoutMs: number;
}

/** The reference's limits. */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { maxPdfPages: 20, maxChars: 128_000, maxOfficeBytes: 50 * 1024 * 1024, timeoutMs: 60_000 };

const EXTRACT_CHARS = 200_000;

/** Whether `path` names a document `read_file` parses (PDF, DOCX, XLSX, PPTX). */
export function isDocumentPath(path: string): boolean {
  return DOCUMENT_EXTENSIONS.has(extname(path).toLowerCase());
}

class DocumentTimeout extends Error {}

async function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, outer?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DocumentTimeout(`parsing took longer than ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readPdf(bytes: Uint8Array, path: string, pages: string | undefined, limits: DocumentLimits, signal?: AbortSignal): Promise<Outcome> {
  const { extractPdfPages, PdfPageRangeError } = await import('./extract-pdf.js');
  let extraction;
  try {
    extraction = await withDeadline((s) => extractPdfPages(bytes, { pages, maxPages: limits.maxPdfPages, maxChars: limits.maxChars, signal: s }), limits.timeoutMs, signal);
  } catch (error) {
    if (error instanceof PdfPageRangeError) return fail(`Error: Invalid page range '${pages}'. Use format like '1-5'.`);
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') return fail('Error reading PDF: the PDF is encrypted (password-protected); it cannot be read.');
    return fail(`Error reading PDF: ${message(error)}`);
  }
  if (!extraction.text) return ok(`(PDF has no extractable text: ${path})`);
  let text = extraction.text;
  if (extraction.end < extraction.totalPages - 1) {
    const nextStart = extraction.end + 2;
    const nextEnd = Math.min(extraction.end + 1 + limits.maxPdfPages, extraction.totalPages);
    text += `\n\n(Showing pages ${extraction.start + 1}-${extraction.end + 1} of ${extraction.totalPages}. Use pages='${nextStart}-${nextEnd}' to continue.)`;
  }
  return ok(text);
}

async function readOffice(bytes: Buffer, path: string, ext: string, limits: DocumentLimits, signal?: AbortSignal): Promise<Outcome> {
  const label = ext.toUpperCase();
  if (bytes.byteLength > limits.maxOfficeBytes) return fail(`Error reading ${label} file: [error: file exceeds ${Math.floor(limits.maxOfficeBytes / (1024 * 1024))} MB limit]`);
  const { openOfficeArchive, OfficeDocumentError } = await import('./office-zip.js');
  let text: string;
  try {
    text = await withDeadline(async () => {
      const archive = await openOfficeArchive(bytes);
      try {
        if (ext === '.docx') return await (await import('./extract-docx.js')).extractDocx(archive, EXTRACT_CHARS);
        if (ext === '.xlsx') return await (await import('./extract-xlsx.js')).extractXlsx(archive, EXTRACT_CHARS);
        return await (await import('./extract-pptx.js')).extractPptx(archive, EXTRACT_CHARS);
      } finally {
        archive.close();
      }
    }, limits.timeoutMs, signal);
  } catch (error) {
    const reason = error instanceof OfficeDocumentError ? message(error) : `failed to extract ${label.slice(1)}: ${message(error)}`;
    return fail(`Error reading ${label} file: [error: ${reason}]`);
  }
  if (!text) return ok(`(${label.slice(1)} has no extractable text: ${path})`);
  if (text.length > limits.maxChars) text = `${text.slice(0, limits.maxChars)}\n\n(Document text truncated at ~128K chars)`;
  return ok(text);
}

/**
 * `read_file` on a document: PDF text by page (`pages` range, at most 20 pages a call, a
 * continuation hint), DOCX paragraphs and tables, XLSX sheets, PPTX slides, with the
 * reference's caps and messages. Never throws: an encrypted, broken, oversized or slow document
 * is an error result. Parsers are imported on first use.
 */
export async function readDocument(bytes: Buffer, path: string, pages: string | undefined, limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS, signal?: AbortSignal): Promise<Outcome> {
  const ext = extname(path).toLowerCase();
  if (ext === '.pdf') return readPdf(bytes, path, pages, limits, signal);
  return readOffice(bytes, path, ext, limits, signal);
}
