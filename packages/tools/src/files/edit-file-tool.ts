import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { findEditMatches, type EditMatch } from './find-edit-matches.js';
import { openWorkspaceFile } from '../workspace/open-workspace-file.js';
import { resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { writeWorkspaceFile } from './write-file-tool.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `edit_file`. */
export interface EditFileArgs {
  path: string;
  old_text: string;
  new_text: string;
  replace_all?: boolean;
  occurrence?: number;
  line_hint?: number;
  expected_replacements?: number;
}

const MAX_EDIT_BYTES = 1024 * 1024 * 1024;

function lineList(matches: readonly EditMatch[]): string {
  const shown = matches.slice(0, 10).map((m) => m.line).join(', ');
  return matches.length > 10 ? `${shown}, …` : shown;
}

/** A hint for a failed match: where the first meaningful line of old_text does appear, if anywhere. */
function notFoundHint(content: string, oldText: string): string {
  const first = oldText.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (first) {
    const lines = content.split('\n');
    const at = lines.findIndex((l) => l.includes(first));
    if (at !== -1) return ` Its first line appears at line ${at + 1}; the lines after it differ. Read the file again and copy old_text exactly.`;
  }
  return ' No similar text found. Read the file again and copy old_text exactly.';
}

/**
 * `edit_file`: replace `old_text` with `new_text`. Exact matches first, then a whitespace- and
 * quote-tolerant line match; ambiguity is an error unless `replace_all`, `occurrence` or
 * `line_hint` picks, and `expected_replacements` guards the count. CRLF files stay CRLF.
 */
export function createEditFileSpec(options: WorkspaceOptions = {}): BuiltinToolSpec<EditFileArgs> {
  return {
    name: 'edit_file',
    description:
      'Edit a file by replacing old_text with new_text. old_text must match the file exactly (small indentation or quote ' +
      'differences are tolerated). If it matches more than once, add context, set replace_all=true, or pick one with ' +
      'occurrence or line_hint.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace or absolute' },
        old_text: { type: 'string', description: 'The text to find' },
        new_text: { type: 'string', description: 'The replacement text' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
        occurrence: { type: 'integer', description: 'Replace only the n-th occurrence (1-based)', minimum: 1 },
        line_hint: { type: 'integer', description: 'Replace the occurrence nearest to this line', minimum: 1 },
        expected_replacements: {
          type: 'integer',
          description: 'Fail unless exactly this many replacements would be made',
          minimum: 1,
        },
      },
      required: ['path', 'old_text', 'new_text'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core', 'subagent', 'memory'],
    async run(args, ctx) {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('edit_file');
      const { path } = args;
      if (typeof path !== 'string' || path.trim() === '') return fail('Error: path must be a non-empty string');
      if (typeof args.old_text !== 'string' || typeof args.new_text !== 'string') {
        return fail('Error: old_text and new_text must be strings');
      }
      if (args.old_text === '') return fail('Error: old_text must not be empty (use write_file to create or overwrite a file)');
      if (args.old_text === args.new_text) return fail('Error: old_text and new_text are identical; nothing to change');
      let raw: string;
      try {
        const real = await resolveWorkspacePath(scope, path, 'write');
        const { handle, stats } = await openWorkspaceFile(scope, real, path, 'read');
        try {
          if (!stats.isFile()) return fail(`Error: Not a file: ${path}`);
          if (stats.size > MAX_EDIT_BYTES) return fail(`Error: File too large to edit: ${path}`);
          raw = (await handle.readFile()).toString('utf8');
        } finally {
          await handle.close();
        }
      } catch (error) {
        return fileFailure(error, path, 'editing file');
      }
      const crlf = raw.includes('\r\n');
      const content = crlf ? raw.replace(/\r\n/g, '\n') : raw;
      const oldText = args.old_text.replace(/\r\n/g, '\n');
      const newText = args.new_text.replace(/\r\n/g, '\n');
      const { matches } = findEditMatches(content, oldText);
      if (matches.length === 0) return fail(`Error: old_text not found in ${path}.${notFoundHint(content, oldText)}`);

      let chosen: EditMatch[];
      if (args.replace_all) {
        chosen = matches;
      } else if (args.occurrence !== undefined) {
        if (args.occurrence > matches.length) {
          return fail(`Error: occurrence ${args.occurrence} requested but old_text matches only ${matches.length} time(s) in ${path}`);
        }
        chosen = [matches[args.occurrence - 1]];
      } else if (args.line_hint !== undefined) {
        const hint = args.line_hint;
        chosen = [matches.reduce((best, m) => (Math.abs(m.line - hint) < Math.abs(best.line - hint) ? m : best))];
      } else if (matches.length > 1 && args.expected_replacements === undefined) {
        return fail(
          `Error: old_text matches ${matches.length} times in ${path} (lines ${lineList(matches)}). Add surrounding context ` +
            'to make it unique, or set replace_all=true, occurrence or line_hint. Nothing was changed.',
        );
      } else {
        chosen = matches;
      }
      if (args.expected_replacements !== undefined && chosen.length !== args.expected_replacements) {
        return fail(
          `Error: expected ${args.expected_replacements} replacement(s) but ${chosen.length} would be made in ${path} ` +
            `(old_text matches ${matches.length} time(s)). Nothing was changed.`,
        );
      }
      let updated = '';
      let cursor = 0;
      for (const m of chosen) {
        updated += content.slice(cursor, m.start) + newText;
        cursor = m.end;
      }
      updated += content.slice(cursor);
      if (crlf) updated = updated.replace(/\n/g, '\r\n');
      try {
        await writeWorkspaceFile(options, ctx.workspace, path, updated);
      } catch (error) {
        return fileFailure(error, path, 'editing file');
      }
      return ok(`Successfully edited ${path} (${chosen.length} replacement${chosen.length === 1 ? '' : 's'})`);
    },
  };
}

/** The `edit_file` tool, ready to register (see `createEditFileSpec` for its behaviour). */
export function createEditFileTool(options: WorkspaceOptions = {}): Tool<EditFileArgs> {
  return toTool(createEditFileSpec(options));
}
