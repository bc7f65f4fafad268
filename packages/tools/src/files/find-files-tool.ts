import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import { lstat, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { createFileFilter, paginate } from './file-filter.js';
import { allowedRoots, resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { walkFailure } from './walk-failure.js';
import { walkTree } from './walk-tree.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `find_files`. */
export interface FindFilesArgs {
  path?: string;
  query?: string;
  glob?: string;
  type?: string;
  include_dirs?: boolean;
  sort?: 'path' | 'modified';
  head_limit?: number;
  offset?: number;
}

/**
 * `find_files`: files under a directory whose name contains `query` (case-insensitive) and/or
 * match `glob`/`type`, sorted by path or newest first, paginated. Symlinks are not followed.
 */
export function createFindFilesSpec(options: WorkspaceOptions = {}): BuiltinToolSpec<FindFilesArgs> {
  return {
    name: 'find_files',
    description:
      'Find files by name fragment (query), glob (e.g. "*.ts" or "src/**/*.test.ts") or type (e.g. "py", "ts"). ' +
      'Returns workspace-relative paths. Use head_limit and offset to page.',
    // Like the reference, no additionalProperties:false: unknown arguments are ignored.
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory to search (default ".")' },
        query: { type: 'string', description: 'Case-insensitive fragment of the file name' },
        glob: { type: 'string', description: 'Glob on the name, or on the relative path when it contains "/"' },
        type: { type: 'string', description: 'File type or extension, e.g. "py", "ts", "md"' },
        include_dirs: { type: 'boolean', description: 'Also return matching directories (default false)' },
        sort: { type: 'string', enum: ['path', 'modified'], description: 'Order: "path" (default) or "modified" (newest first)' },
        head_limit: { type: 'integer', description: 'Maximum results (default 200, 0 = no limit)', minimum: 0, maximum: 1000 },
        offset: { type: 'integer', description: 'Results to skip (default 0)', minimum: 0, maximum: 100000 },
      },
    },
    readOnly: true,
    exclusive: false,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('find_files');
      const path = typeof args.path === 'string' && args.path.trim() !== '' ? args.path : '.';
      let dir: string;
      try {
        dir = await resolveWorkspacePath(scope, path, 'read');
        if (!(await stat(dir)).isDirectory()) return fail(`Error: Not a directory: ${path}`);
      } catch (error) {
        return fileFailure(error, path, 'finding files');
      }
      const filter = createFileFilter(args.glob, args.type);
      const query = args.query?.toLowerCase();
      const found: { shown: string; path: string }[] = [];
      try {
        const roots = scope.restrict ? await allowedRoots(scope, 'read') : undefined;
        for await (const entry of walkTree(dir, true, ctx.signal, roots)) {
          if (entry.kind === 'dir' ? !args.include_dirs : entry.kind !== 'file') continue;
          const name = entry.rel.slice(entry.rel.lastIndexOf('/') + 1);
          if (query && !name.toLowerCase().includes(query)) continue;
          if (!filter(entry.rel)) continue;
          const rel = relative(scope.root, entry.path).split('\\').join('/');
          const shown = rel.startsWith('..') ? entry.path : rel;
          found.push({ shown: entry.kind === 'dir' ? `${shown}/` : shown, path: entry.path });
        }
      } catch (error) {
        return walkFailure(error, path, scope, 'finding files');
      }
      if (found.length === 0) return ok('No files found');
      let ordered = found.map((f) => f.shown).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (args.sort === 'modified') {
        const times = await Promise.all(found.map(async (f) => ({ f, t: (await lstat(f.path).catch(() => undefined))?.mtimeMs ?? 0 })));
        times.sort((a, b) => b.t - a.t || (a.f.shown < b.f.shown ? -1 : 1));
        ordered = times.map((x) => x.f.shown);
      }
      const { page, note } = paginate(ordered, Math.floor(args.head_limit ?? 200), Math.floor(args.offset ?? 0));
      if (page.length === 0) return ok(`No files found at offset ${args.offset ?? 0} (${ordered.length} total)`);
      return ok(page.join('\n') + note);
    },
  };
}

/** The `find_files` tool, ready to register (see `createFindFilesSpec` for its behaviour). */
export function createFindFilesTool(options: WorkspaceOptions = {}): Tool<FindFilesArgs> {
  return toTool(createFindFilesSpec(options));
}
