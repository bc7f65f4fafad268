import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';
import { fileFailure, noWorkspace } from './file-failure.js';
import { openWorkspaceFile } from '../workspace/open-workspace-file.js';
import { resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** Arguments of `write_file`. */
export interface WriteFileArgs {
  path: string;
  content: string;
}

/**
 * Writes `content` (UTF-8) to a vetted workspace path, creating parent directories. The file is
 * truncated only after the opened descriptor has been proven to lie inside the workspace.
 */
export async function writeWorkspaceFile(options: WorkspaceOptions, workspace: string | undefined, path: string, content: string): Promise<void> {
  const scope = scopeFor(options, workspace);
  if (!scope) throw new Error('no workspace');
  const real = await resolveWorkspacePath(scope, path, 'write');
  await mkdir(dirname(real), { recursive: true });
  // mkdir may have walked a freshly swapped symlink: resolving again re-proves the parent chain.
  const again = await resolveWorkspacePath(scope, path, 'write');
  const { handle, stats } = await openWorkspaceFile(scope, again, path, 'write');
  try {
    if (!stats.isFile()) throw Object.assign(new Error(`Not a regular file: ${path}`), { code: 'EISDIR' });
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/** `write_file`: create or overwrite a whole file inside the workspace (parents created). */
export function createWriteFileSpec(options: WorkspaceOptions = {}): BuiltinToolSpec<WriteFileArgs> {
  return {
    name: 'write_file',
    description: 'Write content to a file, replacing it if it exists. Parent directories are created as needed.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace or absolute' },
        content: { type: 'string', description: 'The complete new content of the file' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core', 'subagent', 'memory'],
    async run(args, ctx) {
      if (!scopeFor(options, ctx.workspace)) return noWorkspace('write_file');
      if (typeof args.path !== 'string' || args.path.trim() === '') return fail('Error: path must be a non-empty string');
      if (typeof args.content !== 'string') return fail('Error: content must be a string');
      try {
        await writeWorkspaceFile(options, ctx.workspace, args.path, args.content);
      } catch (error) {
        return fileFailure(error, args.path, 'writing file');
      }
      return ok(`Successfully wrote ${[...args.content].length} characters to ${args.path}`);
    },
  };
}

/** The `write_file` tool, ready to register (see `createWriteFileSpec` for its behaviour). */
export function createWriteFileTool(options: WorkspaceOptions = {}): Tool<WriteFileArgs> {
  return toTool(createWriteFileSpec(options));
}
