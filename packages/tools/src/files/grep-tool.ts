import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { Script, createContext } from 'node:vm';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { createFileFilter, paginate } from './file-filter.js';
import { openWorkspaceFile } from '../workspace/open-workspace-file.js';
import { allowedRoots, resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { walkFailure } from './walk-failure.js';
import { walkTree } from './walk-tree.js';
import { scopeFor, type WorkspaceOptions, type WorkspaceScope } from '../workspace/workspace-scope.js';

/** Arguments of `grep`. */
export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  case_insensitive?: boolean;
  fixed_strings?: boolean;
  output_mode?: 'content' | 'files_with_matches' | 'count';
  context_before?: number;
  context_after?: number;
  head_limit?: number;
  offset?: number;
}

/** Options of `createGrepTool`. */
export interface GrepOptions extends WorkspaceOptions {
  /** Total time the regex may spend matching in one call (default 5000 ms); guards against ReDoS. */
  regexTimeoutMs?: number;
}

// Matching runs as a vm script so a catastrophic pattern can be interrupted: a plain loop would
// block the event loop, and with it every other session, for as long as the backtracking lasts.
const MATCH_SCRIPT = new Script('hits = []; for (let i = 0; i < lines.length; i++) if (re.test(lines[i])) hits.push(i);');

const DIR_FILE_LIMIT = 2 * 1024 * 1024;
const EXPLICIT_FILE_LIMIT = 100 * 1024 * 1024;
const RESULT_CAP = 128_000;

function compile(args: GrepArgs): RegExp | string {
  let source = args.pattern;
  let flags = args.case_insensitive ? 'i' : '';
  if (args.fixed_strings) source = source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  else if (source.startsWith('(?i)')) {
    // Python/ripgrep inline flag, common in model output; JS only has it as a flag.
    source = source.slice(4);
    flags = 'i';
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    return `Error: Invalid regex pattern: ${(error as Error).message}`;
  }
}

async function readText(scope: WorkspaceScope, path: string, limit: number): Promise<string | undefined> {
  const { handle, stats } = await openWorkspaceFile(scope, path, path, 'read');
  try {
    if (!stats.isFile() || stats.size > limit) return undefined;
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8192).includes(0)) return undefined;
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * `grep`: regex or literal search over file contents; output as matching files (default),
 * `path:line:text` content with optional context (`path-line-text`, groups split by `--`), or
 * per-file counts. Binary files, files over 2 MB in directory searches and symlinks are skipped.
 */
export function createGrepSpec(options: GrepOptions = {}): BuiltinToolSpec<GrepArgs> {
  const regexBudget = options.regexTimeoutMs ?? 5000;
  return {
    name: 'grep',
    description:
      'Search file contents with a regular expression (or a literal with fixed_strings=true). output_mode: ' +
      '"files_with_matches" (default), "content" (path:line:text, with optional context lines) or "count". ' +
      'Filter files with glob or type; page with head_limit and offset.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression (JavaScript syntax) or literal text', minLength: 1 },
        path: { type: 'string', description: 'File or directory to search (default ".")' },
        glob: { type: 'string', description: 'Only files whose name (or relative path, if it contains "/") matches' },
        type: { type: 'string', description: 'Only files of this type or extension, e.g. "py", "ts"' },
        case_insensitive: { type: 'boolean', description: 'Ignore case (default false)' },
        fixed_strings: { type: 'boolean', description: 'Treat pattern as literal text (default false)' },
        output_mode: {
          type: 'string',
          enum: ['content', 'files_with_matches', 'count'],
          description: 'What to return (default "files_with_matches")',
        },
        context_before: { type: 'integer', description: 'Lines of context before each match (content mode)', minimum: 0, maximum: 20 },
        context_after: { type: 'integer', description: 'Lines of context after each match (content mode)', minimum: 0, maximum: 20 },
        head_limit: { type: 'integer', description: 'Maximum results (default 250, 0 = no limit)', minimum: 0, maximum: 1000 },
        offset: { type: 'integer', description: 'Results to skip (default 0)', minimum: 0, maximum: 100000 },
      },
      required: ['pattern'],
    },
    readOnly: true,
    exclusive: false,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('grep');
      if (typeof args.pattern !== 'string' || args.pattern === '') return fail('Error: pattern must be a non-empty string');
      const regex = compile(args);
      if (typeof regex === 'string') return fail(regex);
      const path = typeof args.path === 'string' && args.path.trim() !== '' ? args.path : '.';
      const mode = args.output_mode ?? 'files_with_matches';
      const before = Math.min(20, Math.max(0, Math.floor(args.context_before ?? 0)));
      const after = Math.min(20, Math.max(0, Math.floor(args.context_after ?? 0)));
      const filter = createFileFilter(args.glob, args.type);

      let target: string;
      let explicitFile: boolean;
      try {
        target = await resolveWorkspacePath(scope, path, 'read');
        explicitFile = !(await stat(target)).isDirectory();
      } catch (error) {
        return fileFailure(error, path, 'searching');
      }
      const files: string[] = [];
      if (explicitFile) files.push(target);
      else {
        try {
          const roots = scope.restrict ? await allowedRoots(scope, 'read') : undefined;
          for await (const entry of walkTree(target, true, ctx.signal, roots)) {
            if (entry.kind === 'file' && filter(entry.rel)) files.push(entry.path);
          }
        } catch (error) {
          return walkFailure(error, path, scope, 'searching');
        }
        // Path order, so results (and their pages) are stable across calls.
        files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      }
      const show = (p: string): string => {
        const rel = relative(scope.root, p).split('\\').join('/');
        return rel.startsWith('..') ? p : rel;
      };

      const results: string[] = [];
      const sandbox = createContext({ re: regex, lines: [] as string[], hits: [] as number[] });
      const deadline = Date.now() + regexBudget;
      for (const file of files) {
        if (ctx.signal?.aborted) break;
        let text: string | undefined;
        try {
          text = await readText(scope, file, explicitFile ? EXPLICIT_FILE_LIMIT : DIR_FILE_LIMIT);
        } catch (error) {
          if (explicitFile) return fileFailure(error, path, 'searching');
          continue;
        }
        if (text === undefined) continue;
        const lines = text.split(/\r?\n/);
        if (lines[lines.length - 1] === '') lines.pop();
        sandbox.lines = lines;
        try {
          MATCH_SCRIPT.runInContext(sandbox, { timeout: Math.max(1, deadline - Date.now()) });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
          return fail(
            `Error: grep pattern took longer than ${regexBudget} ms to match; simplify the regular expression ` +
              '(avoid nested quantifiers) or use fixed_strings=true',
          );
        }
        const hits = sandbox.hits as number[];
        const hitSet = new Set(hits);
        if (hits.length === 0) continue;
        const name = show(file);
        if (mode === 'files_with_matches') results.push(name);
        else if (mode === 'count') results.push(`${name}:${hits.length}`);
        else {
          let lastShown = -1;
          for (const h of hits) {
            const from = Math.max(0, h - before, lastShown + 1);
            if ((before > 0 || after > 0) && lastShown !== -1 && from > lastShown + 1) results.push('--');
            for (let i = from; i <= Math.min(lines.length - 1, h + after); i++) {
              if (i <= lastShown) continue;
              const sep = hitSet.has(i) ? ':' : '-';
              results.push(`${name}${sep}${i + 1}${sep}${lines[i]}`);
              lastShown = i;
            }
          }
        }
      }
      if (results.length === 0) return ok(`No matches found for pattern: ${args.pattern}`);
      const { page, note } = paginate(results, Math.floor(args.head_limit ?? 250), Math.floor(args.offset ?? 0));
      if (page.length === 0) return ok(`No matches at offset ${args.offset ?? 0} (${results.length} total)`);
      let out = page.join('\n');
      if (out.length > RESULT_CAP) out = `${out.slice(0, RESULT_CAP)}\n\n... (output truncated at ${RESULT_CAP} chars; narrow the search or page with offset)`;
      return ok(out + note);
    },
  };
}

/** The `grep` tool, ready to register (see `createGrepSpec` for its behaviour). */
export function createGrepTool(options: GrepOptions = {}): Tool<GrepArgs> {
  return toTool(createGrepSpec(options));
}
