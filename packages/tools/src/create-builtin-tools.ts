import type { Tool } from '@nanobot/tools-core';
import { createApplyPatchTool } from './files/apply-patch-tool.js';
import { createEditFileTool } from './files/edit-file-tool.js';
import { ExecSessionManager } from './exec/exec-session-manager.js';
import { createExecTool, type ExecOptions } from './exec/exec-tool.js';
import { createListExecSessionsTool } from './exec/list-exec-sessions-tool.js';
import { createFindFilesTool } from './files/find-files-tool.js';
import { createGrepTool } from './files/grep-tool.js';
import { createListDirTool } from './files/list-dir-tool.js';
import { createMessageTool, type MessageSender } from './agent/message-tool.js';
import { createReadFileTool, type ReadFileOptions } from './files/read-file-tool.js';
import { createSpawnTool, type SubagentSpawner } from './agent/spawn-tool.js';
import { createWebFetchTool, type WebFetchOptions } from './web/web-fetch-tool.js';
import { createWebSearchTool, type WebSearchBackend } from './web/web-search-tool.js';
import { createWriteFileTool } from './files/write-file-tool.js';
import { createWriteStdinTool } from './exec/write-stdin-tool.js';
import type { WorkspaceOptions } from './workspace/workspace-scope.js';

/** Options of `createBuiltinTools`; each tool family can be switched off. */
export interface BuiltinToolsOptions extends WorkspaceOptions {
  /** read_file limits. */
  readFile?: Omit<ReadFileOptions, keyof WorkspaceOptions>;
  /**
   * `false` leaves out exec, write_stdin and list_exec_sessions. Pass `exec.sessions` to share
   * one `ExecSessionManager` between several calls (an agent's core and subagent tools) and to
   * kill its sessions on `/stop` and shutdown; otherwise each call makes its own.
   */
  exec?: Omit<ExecOptions, keyof WorkspaceOptions> | false;
  /** `false` leaves out web_fetch and web_search. */
  web?: (WebFetchOptions & { searchBackend?: WebSearchBackend; searchDefaultCount?: number }) | false;
  /** Without a sender the `message` tool is left out. */
  messageSender?: MessageSender;
  /** Without a spawner the `spawn` tool is left out. */
  subagentSpawner?: SubagentSpawner;
}

/**
 * Every built-in tool, configured from one options object: read_file, write_file, edit_file,
 * apply_patch, list_dir, find_files, grep, exec with write_stdin and list_exec_sessions, web_fetch,
 * web_search, and message/spawn when their
 * interfaces are supplied. Fresh tool objects per call; filter by `tool.scopes` for subagents.
 */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): Tool<any>[] {
  const ws: WorkspaceOptions = {
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.restrictToWorkspace !== undefined ? { restrictToWorkspace: options.restrictToWorkspace } : {}),
    ...(options.extraReadDirs !== undefined ? { extraReadDirs: options.extraReadDirs } : {}),
  };
  const tools: Tool<any>[] = [
    createReadFileTool({ ...ws, ...(options.readFile ?? {}) }),
    createWriteFileTool(ws),
    createEditFileTool(ws),
    createApplyPatchTool(ws),
    createListDirTool(ws),
    createFindFilesTool(ws),
    createGrepTool(ws),
  ];
  if (options.exec !== false) {
    const sessions = options.exec?.sessions ?? new ExecSessionManager();
    tools.push(createExecTool({ ...ws, ...(options.exec ?? {}), sessions }));
    tools.push(createWriteStdinTool(sessions));
    tools.push(createListExecSessionsTool(sessions));
  }
  if (options.web !== false) {
    const { searchBackend, searchDefaultCount, ...fetchOptions } = options.web ?? {};
    tools.push(createWebFetchTool(fetchOptions));
    tools.push(
      createWebSearchTool({
        ...(searchBackend ? { backend: searchBackend } : {}),
        ...(searchDefaultCount !== undefined ? { defaultCount: searchDefaultCount } : {}),
      }),
    );
  }
  if (options.messageSender) tools.push(createMessageTool({ ...ws, sender: options.messageSender }));
  if (options.subagentSpawner) tools.push(createSpawnTool({ spawner: options.subagentSpawner }));
  return tools;
}
