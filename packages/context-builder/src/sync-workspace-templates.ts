import { join } from 'node:path';
import { ConfigurationError } from '@nanobot/schema';
import { WORKSPACE_TEMPLATES } from './templates.js';
import { nodeWorkspaceFs, type WorkspaceFs } from './workspace-fs.js';

/**
 * Copies the shipped workspace templates (SOUL.md, USER.md, AGENTS.md, HEARTBEAT.md,
 * memory/MEMORY.md, memory/history.jsonl) into `workspace`, never overwriting an existing file.
 * Returns the workspace-relative paths it created. Throws ConfigurationError when `fs` cannot write.
 */
export async function syncWorkspaceTemplates(workspace: string, fs: WorkspaceFs = nodeWorkspaceFs): Promise<string[]> {
  if (!fs.writeText) throw new ConfigurationError('syncWorkspaceTemplates needs a WorkspaceFs with writeText');
  const created: string[] = [];
  for (const [rel, text] of Object.entries(WORKSPACE_TEMPLATES)) {
    const path = join(workspace, rel);
    if (await fs.isFile(path)) continue;
    try {
      await fs.writeText(path, text);
      created.push(rel);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
  }
  return created;
}
