import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, image, ok, sniffImage } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { openWorkspaceFile } from '../workspace/open-workspace-file.js';
import type { ReadTracker } from './read-tracker.js';
import { DEFAULT_DOCUMENT_LIMITS, isDocumentPath, readDocument, type DocumentLimits } from '../documents/read-document.js';
import { resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `read_file`. */
export interface ReadFileArgs {
  path: string;
  offset?: number;
  limit?: number;
  /** PDF page range, `"3"` or `"1-5"` (at most 20 pages a call). */
  pages?: string;
  force?: boolean;
}

/** Options of `createReadFileTool`. */
export interface ReadFileOptions extends WorkspaceOptions {
  /** Largest file read at all, in bytes (default 100 MiB as the reference). */
  maxFileBytes?: number;
  /** Largest text returned, in characters (default 128 000). */
  maxOutputChars?: number;
  /** Lines returned when `limit` is absent (default 2000). */
  defaultLimit?: number;
  /** Largest image returned as an image block, in bytes (default 10 MiB). */
  maxImageBytes?: number;
  /**
   * Enables `[File unchanged since last read: <path>]` for identical re-reads within a session
   * (off by default: after compaction the model may no longer hold the earlier text).
   */
  readTracker?: ReadTracker;
  /** PDF pages per call, parse time limit and Office size cap (defaults: the reference's, 60 s). */
  documents?: Partial<DocumentLimits>;
}

const DEVICE_PATH = /^\/(?:dev\/|proc\/[^/]+\/fd\/[0-2]$)/;

/** Splits like Python's `splitlines()` for \n and \r\n: no phantom line after a final newline. */
function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * `read_file`: numbered `LINE|CONTENT` lines of a UTF-8 text file, paginated by `offset` and
 * `limit`, capped in size, refused outside the workspace (symlinks and races included).
 */
export function createReadFileSpec(options: ReadFileOptions = {}): BuiltinToolSpec<ReadFileArgs> {
  const maxFileBytes = options.maxFileBytes ?? 100 * 1024 * 1024;
  const maxChars = options.maxOutputChars ?? 128_000;
  const defaultLimit = options.defaultLimit ?? 2000;
  const maxImageBytes = options.maxImageBytes ?? 10 * 1024 * 1024;
  const documentLimits: DocumentLimits = { ...DEFAULT_DOCUMENT_LIMITS, maxChars, ...options.documents };
  return {
    name: 'read_file',
    description:
      'Read a file. Text comes back as numbered lines (LINE_NUM|CONTENT); use offset and limit to page through large ' +
      'files. PNG, JPEG, GIF and WebP images come back as images. PDF, DOCX, XLSX and PPTX documents come back as ' +
      'their text (PDF by page: use pages, at most 20 a call).',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace or absolute' },
        offset: { type: 'integer', description: 'First line to read, 1-based (default 1)', minimum: 1 },
        limit: { type: 'integer', description: `Maximum number of lines to read (default ${defaultLimit})`, minimum: 1 },
        pages: { type: 'string', description: "Page range for PDF files, e.g. '1-5' (default: all, max 20 pages)" },
        force: { type: 'boolean', description: 'Return the content even if the file is unchanged since your last read' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    exclusive: false,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    // Paged by offset/limit lines: cut with where to read on, never offloaded (an offloaded
    // result is read back with read_file itself).
    rereadable: true,
    scopes: ['core', 'subagent', 'memory'],
    async run(args, ctx) {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('read_file');
      const path = args.path;
      if (typeof path !== 'string' || path.trim() === '') return fail('Error: path must be a non-empty string');
      if (DEVICE_PATH.test(path)) return fail(`Error: Refusing to read device path: ${path}`);
      let content: string;
      let version: string;
      let realPath: string;
      try {
        const real = await resolveWorkspacePath(scope, path, 'read');
        realPath = real;
        const { handle, stats } = await openWorkspaceFile(scope, real, path, 'read');
        version = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
        try {
          if (stats.isDirectory()) return fail(`Error: Not a file: ${path} (use list_dir for directories)`);
          if (!stats.isFile()) return fail(`Error: Not a regular file: ${path}`);
          if (stats.size > maxFileBytes) {
            return fail(`Error: File too large: ${path} is ${stats.size} bytes (limit ${maxFileBytes})`);
          }
          const bytes = await handle.readFile();
          if (isDocumentPath(path)) return await readDocument(bytes, path, args.pages, documentLimits, ctx.signal);
          const mime = sniffImage(bytes);
          if (mime) {
            if (bytes.byteLength > maxImageBytes) {
              return fail(`Error: Image too large: ${path} is ${bytes.byteLength} bytes (limit ${maxImageBytes})`);
            }
            return image(`Image: ${path} (${mime}, ${bytes.byteLength} bytes)`, mime, bytes);
          }
          if (bytes.subarray(0, 8192).includes(0)) {
            return fail(`Error: ${path} looks like a binary file; read_file only returns text`);
          }
          content = bytes.toString('utf8');
        } finally {
          await handle.close();
        }
      } catch (error) {
        return fileFailure(error, path, 'reading file');
      }
      const tracker = options.readTracker;
      const session = ctx.sessionKey ?? '';
      const key = `${realPath}\0${args.offset ?? 1}\0${args.limit ?? defaultLimit}`;
      if (tracker && !args.force && tracker.seen(session, key, version)) return ok(`[File unchanged since last read: ${path}]`);
      tracker?.record(session, key, version);
      const lines = splitLines(content);
      const total = lines.length;
      if (total === 0) return ok(`(Empty file: ${path})`);
      const offset = Math.max(1, Math.floor(args.offset ?? 1));
      if (offset > total) return fail(`Error: offset ${offset} is beyond end of file (${total} lines)`);
      const limit = Math.max(1, Math.floor(args.limit ?? defaultLimit));
      const start = offset - 1;
      let end = Math.min(start + limit, total);
      const out: string[] = [];
      let used = 0;
      for (let i = start; i < end; i++) {
        const line = `${i + 1}|${lines[i]}`;
        // The first line is always shown (cut if alone it exceeds the cap) so paging progresses.
        if (used + line.length + 1 > maxChars) {
          if (out.length === 0) {
            out.push(line.slice(0, maxChars));
            end = i + 1;
          } else {
            end = i;
          }
          break;
        }
        out.push(line);
        used += line.length + 1;
      }
      let text = out.join('\n');
      if (end < total) text += `\n\n(Showing lines ${offset}-${end} of ${total}. Use offset=${end + 1} to continue.)`;
      else text += `\n\n(End of file — ${total} lines total)`;
      return ok(text);
    },
  };
}

/** The `read_file` tool, ready to register (see `createReadFileSpec` for its behaviour). */
export function createReadFileTool(options: ReadFileOptions = {}): Tool<ReadFileArgs> {
  return toTool(createReadFileSpec(options));
}
