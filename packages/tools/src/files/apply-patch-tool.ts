import { unlink } from 'node:fs/promises';
import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec, Outcome } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { lineDiffStats } from './line-diff-stats.js';
import { openWorkspaceFile } from '../workspace/open-workspace-file.js';
import { resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';
import { writeWorkspaceFile } from './write-file-tool.js';
import { scopeFor, type WorkspaceOptions, type WorkspaceScope } from '../workspace/workspace-scope.js';

/** One edit of `apply_patch`. */
export interface PatchEdit {
  path: string;
  action: 'replace' | 'add';
  old_text?: string | null;
  new_text?: string | null;
}

/** Arguments of `apply_patch`. */
export interface ApplyPatchArgs {
  edits: PatchEdit[];
  dry_run?: boolean;
}

class PatchError extends Error {}

interface Planned {
  /** The file's real path (the key: two edits of one file build on each other). */
  real: string;
  /** The path as the model wrote it (messages and writes go through the guard with it). */
  path: string;
  /** What the file held before the patch, or null when the patch creates it. */
  original: Buffer | null;
  content: string;
}

interface Summary {
  action: 'add' | 'update';
  path: string;
  added: number;
  deleted: number;
}

const MAX_PATCH_FILE_BYTES = 1024 * 1024 * 1024;

/** Appends without merging into an unterminated last line; the result ends with a newline. */
function appendText(content: string, addition: string): string {
  let base = content.replace(/\r\n/g, '\n');
  const extra = addition.replace(/\r\n/g, '\n');
  if (base && extra && !base.endsWith('\n') && !extra.startsWith('\n')) base += '\n';
  const combined = base + extra;
  return combined && !combined.endsWith('\n') ? `${combined}\n` : combined;
}

function formatSummary(s: Summary): string {
  const stats = s.added || s.deleted ? ` (+${s.added}/-${s.deleted})` : '';
  return `- ${s.action} ${s.path}${stats}`;
}

function decode(raw: Buffer, path: string): string {
  try {
    // ignoreBOM keeps a byte-order mark in the text, so a file is written back byte-exact.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw new PatchError(`file is not UTF-8 text: ${path}`);
  }
}

/** The file's bytes, or null when it does not exist; guarded like every file tool's read. */
async function readExisting(scope: WorkspaceScope, real: string, path: string, forUpdate: boolean): Promise<Buffer | null> {
  let opened;
  try {
    opened = await openWorkspaceFile(scope, real, path, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    if (!opened.stats.isFile()) throw new PatchError(forUpdate ? `path to update is not a file: ${path}` : `path is not a file: ${path}`);
    if (opened.stats.size > MAX_PATCH_FILE_BYTES) throw new PatchError(`file too large to patch: ${path}`);
    return await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
}

/** Every edit checked and applied in memory, in order; throws at the first that cannot apply. */
async function plan(scope: WorkspaceScope, edits: readonly unknown[]): Promise<{ files: Map<string, Planned>; summaries: Summary[] }> {
  const files = new Map<string, Planned>();
  const summaries: Summary[] = [];
  for (const value of edits) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PatchError('each edit must be an object');
    const edit = value as Record<string, unknown>;
    if (typeof edit.path !== 'string') throw new PatchError('path required for edit');
    const path = edit.path.trim();
    if (path === '') throw new PatchError('patch path cannot be empty');
    if (path.includes('\0')) throw new PatchError(`patch path contains a null byte: ${JSON.stringify(edit.path)}`);
    const action = edit.action;
    if (typeof action !== 'string') throw new PatchError(`action required for edit: ${path}`);
    if (action !== 'add' && action !== 'replace') throw new PatchError(`unknown action: ${action}`);
    const real = await resolveWorkspacePath(scope, path, 'write');
    let file = files.get(real);
    const pending = file !== undefined;
    if (!file) {
      const original = await readExisting(scope, real, path, action === 'replace');
      file = { real, path, original, content: original === null ? '' : decode(original, path) };
    }
    const exists = pending || file.original !== null;
    const before = file.content;
    if (action === 'add') {
      if (typeof edit.new_text !== 'string') throw new PatchError(`new_text required for add: ${path}`);
      if (exists) {
        const crlf = before.includes('\r\n');
        const next = appendText(before, edit.new_text);
        file.content = crlf ? next.replace(/\n/g, '\r\n') : next;
        summaries.push({ action: 'update', path, ...lineDiffStats(before, file.content) });
      } else {
        let next = edit.new_text.replace(/\r\n/g, '\n');
        if (next && !next.endsWith('\n')) next += '\n';
        file.content = next;
        summaries.push({ action: 'add', path, added: lineDiffStats('', next).added, deleted: 0 });
      }
    } else {
      const oldText = typeof edit.old_text === 'string' ? edit.old_text : '';
      if (oldText === '') throw new PatchError(`old_text required for replace: ${path}`);
      if (typeof edit.new_text !== 'string') throw new PatchError(`new_text required for replace: ${path}`);
      if (!exists) throw new PatchError(`file to update does not exist: ${path}`);
      const crlf = before.includes('\r\n');
      const norm = before.replace(/\r\n/g, '\n');
      const needle = oldText.replace(/\r\n/g, '\n');
      const at = norm.indexOf(needle);
      if (at < 0) throw new PatchError(`old_text not found in ${path}`);
      if (norm.indexOf(needle, at + 1) >= 0) throw new PatchError(`old_text appears multiple times in ${path}`);
      let next = norm.slice(0, at) + edit.new_text.replace(/\r\n/g, '\n') + norm.slice(at + needle.length);
      if (next && !next.endsWith('\n')) next += '\n';
      file.content = crlf ? next.replace(/\n/g, '\r\n') : next;
      summaries.push({ action: 'update', path, ...lineDiffStats(before, file.content) });
    }
    files.set(real, file);
  }
  return { files, summaries };
}

/**
 * Writes every planned file; on any failure puts back what was written (original bytes, or
 * removes a file the patch created) and rethrows, so the workspace is as before the call.
 */
async function commit(options: WorkspaceOptions, workspace: string | undefined, files: Iterable<Planned>): Promise<void> {
  const written: Planned[] = [];
  try {
    for (const file of files) {
      written.push(file);
      await writeWorkspaceFile(options, workspace, file.path, file.content);
    }
  } catch (error) {
    for (const file of written.reverse()) {
      try {
        if (file.original === null) await unlink(file.real);
        else await writeWorkspaceFile(options, workspace, file.path, decode(file.original, file.path));
      } catch {
        // Best effort: the original error is what the model needs to read.
      }
    }
    throw error;
  }
}

/**
 * `apply_patch`: 1–20 structured edits (`replace` an exact unique `old_text`, or `add` text to a
 * file, creating it) across files, all or nothing: every edit is checked against the files (and
 * earlier edits of the same file) before anything is written, and a write that fails puts back
 * what the call already wrote. `dry_run` validates and summarises. Same workspace policy as
 * `write_file`; CRLF files stay CRLF; the reference's messages.
 */
export function createApplyPatchSpec(options: WorkspaceOptions = {}): BuiltinToolSpec<ApplyPatchArgs> {
  return {
    name: 'apply_patch',
    description:
      'Default tool for code edits. Supports multi-file changes in a single call. Provide a list of structured edits, each ' +
      'specifying a file path, action (replace/add), and the exact text to change. Paths are resolved by the current ' +
      'workspace access policy. Set dry_run=true to validate and preview without writing files. Use edit_file only for ' +
      'small exact replacements on a single file.',
    parameters: {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          description: 'List of edits to apply. Each edit specifies a file and the change to make.',
          items: {
            type: 'object',
            properties: {
              path: { type: 'string', description: "Path to the file to edit. Relative paths resolve against the workspace; absolute paths and '..' obey the workspace access policy." },
              action: { type: 'string', description: 'Operation type: replace or add.', enum: ['replace', 'add'] },
              old_text: { type: ['string', 'null'], description: 'Exact text to search for in the file. Required for replace.' },
              new_text: { type: ['string', 'null'], description: 'Text to replace with or append. Required for replace and add.' },
            },
            required: ['path', 'action'],
          },
          minItems: 1,
          maxItems: 20,
        },
        dry_run: { type: 'boolean', description: 'Validate and summarize the patch without writing files.', default: false },
      },
      required: ['edits'],
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core', 'subagent'],
    async run(args, ctx): Promise<Outcome> {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('apply_patch');
      try {
        if (!Array.isArray(args.edits) || args.edits.length === 0) throw new PatchError('must provide edits');
        const { files, summaries } = await plan(scope, args.edits);
        const lines = summaries.map(formatSummary).join('\n');
        if (args.dry_run === true) return ok(`Patch dry-run succeeded:\n${lines}`);
        await commit(options, ctx.workspace, files.values());
        return ok(`Patch applied:\n${lines}`);
      } catch (error) {
        if (error instanceof WorkspaceViolationError) return fileFailure(error, '', 'applying patch');
        if (error instanceof PatchError) return fail(`Error applying patch: ${error.message}`);
        return fail(`Error applying patch: ${errorMessage(error)}`);
      }
    },
  };
}

/** The `apply_patch` tool, ready to register (see `createApplyPatchSpec`). */
export function createApplyPatchTool(options: WorkspaceOptions = {}): Tool<ApplyPatchArgs> {
  return toTool(createApplyPatchSpec(options));
}
