import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent, defaultArtifactsDir } from './create-agent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe('offloaded tool results live beside the sessions, not in the workspace', () => {
  it('a huge grep result is offloaded to <sessionsDir>/artifacts; read_file opens it; grep, find_files and list_dir never see it', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const log = Array.from({ length: 400 }, (_, i) => `${i} ERROR something failed at step ${i}`).join('\n');
    writeFileSync(join(workspace, 'app.log'), `${log}\n`);
    let location = '';
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'r1', name: 'grep', arguments: { pattern: 'ERROR', output_mode: 'content' } }] },
      (request) => {
        const preview = String(request.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'r1')?.content);
        location = /(\/\S+?\.txt)/.exec(preview)?.[1] ?? '';
        return {
          toolCalls: [
            { id: 'r2', name: 'read_file', arguments: { path: location, limit: 3 } },
            { id: 'g1', name: 'grep', arguments: { pattern: 'ERROR', output_mode: 'count' } },
            { id: 'f1', name: 'find_files', arguments: { query: 'r1' } },
            { id: 'l1', name: 'list_dir', arguments: { path: '.', recursive: true } },
            { id: 'w1', name: 'write_file', arguments: { path: location, content: 'tampered' } },
          ],
        };
      },
      { content: 'done' },
    ]);
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, maxToolResultChars: 2000, contextBuilder: false });
    await agent.ask('Count the errors in app.log.');
    await agent.stop();
    const results = new Map(provider.requests[2].messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, String(m.content)]));

    expect(location.startsWith(join(defaultArtifactsDir(sessionsDir), '.nanobot', 'tool-results'))).toBe(true);
    expect(existsSync(location)).toBe(true);
    expect(results.get('r2')).toContain('1|app.log:1:0 ERROR something failed at step 0');
    // Only the log itself: 400 hits, none from the offloaded copy.
    expect(results.get('g1')).toBe('app.log:400');
    expect(results.get('f1')).toBe('No files found');
    expect(results.get('l1')).toBe('app.log');
    // The extra root is read-only.
    expect(results.get('w1')).toContain('outside allowed directory');
    expect(readdirSync(workspace)).toEqual(['app.log']);
  });

  it('an artifacts directory inside the workspace is refused', () => {
    const workspace = temp('runner-ws-');
    const provider = new ScriptedProvider([]);
    expect(() => createAgent({ workspace, provider, sessionsDir: temp('runner-sessions-'), artifactsDir: join(workspace, 'offloads') })).toThrow(/inside the workspace/);
  });
});
