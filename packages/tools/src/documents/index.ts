/**
 * Text from documents (PDF, DOCX, XLSX, PPTX) for read_file. Internal: not exported from
 * `@nanobot/tools`. The extractors load lazily (dynamic imports in `read-document.ts`), so
 * importing this folder loads no PDF or ZIP code.
 */
export { DEFAULT_DOCUMENT_LIMITS, DOCUMENT_EXTENSIONS, isDocumentPath, readDocument } from './read-document.js';
export type { DocumentLimits } from './read-document.js';
