import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import { stat } from 'node:fs/promises';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { allowedRoots, resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { walkFailure } from './walk-failure.js';
import { walkTree } from './walk-tree.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `list_dir`. */
export interface ListDirArgs {
  path: string;
  recursive?: boolean;
  max_entries?: number;
}

/**
 * `list_dir`: a directory's entries (`name/` for directories, `name@` for symlinks), optionally
 * recursive, noise directories skipped, capped at `max_entries` (default 200).
 */
export function createListDirSpec(options: WorkspaceOptions = {}): BuiltinToolSpec<ListDirArgs> {
  return {
    name: 'list_dir',
    description:
      'List a directory. Directories end with "/", symlinks with "@". Set recursive=true to include nested entries. ' +
      'Noise directories (.git, node_modules, __pycache__, dist, build, …) are skipped.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory path, relative to the workspace or absolute' },
        recursive: { type: 'boolean', description: 'List nested entries too (default false)' },
        max_entries: { type: 'integer', description: 'Maximum entries to return (default 200)', minimum: 1 },
      },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    exclusive: false,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const scope = scopeFor(options, ctx.workspace);
      if (!scope) return noWorkspace('list_dir');
      const path = typeof args.path === 'string' && args.path.trim() !== '' ? args.path : '.';
      const cap = Math.max(1, Math.floor(args.max_entries ?? 200));
      let dir: string;
      try {
        dir = await resolveWorkspacePath(scope, path, 'read');
        const s = await stat(dir);
        if (!s.isDirectory()) return fail(`Error: Not a directory: ${path}`);
      } catch (error) {
        const failure = fileFailure(error, path, 'listing directory');
        return failure.text.startsWith('Error: File not found') ? fail(`Error: Directory not found: ${path}`) : failure;
      }
      const all: string[] = [];
      try {
        const roots = scope.restrict ? await allowedRoots(scope, 'read') : undefined;
        for await (const entry of walkTree(dir, args.recursive === true, ctx.signal, roots)) {
          all.push(entry.rel + (entry.kind === 'dir' ? '/' : entry.kind === 'symlink' ? '@' : ''));
        }
      } catch (error) {
        return walkFailure(error, path, scope, 'listing directory');
      }
      const total = all.length;
      if (total === 0) return ok(`Directory ${path} is empty`);
      all.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      let text = all.slice(0, cap).join('\n');
      if (total > cap) text += `\n\n(truncated, showing first ${cap} of ${total} entries)`;
      return ok(text);
    },
  };
}

/** The `list_dir` tool, ready to register (see `createListDirSpec` for its behaviour). */
export function createListDirTool(options: WorkspaceOptions = {}): Tool<ListDirArgs> {
  return toTool(createListDirSpec(options));
}
