import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent } from '@nanobot/runner';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

describe('nanobot tools', () => {
  it('--json prints the registry definitions exactly as the agent sends them', async () => {
    const workspace = tempDir('ws');
    const sessions = tempDir('sessions');
    const result = await runCli(['tools', '--json', '-w', workspace, '--sessions-dir', sessions], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const agent = createAgent({ workspace, provider: new ScriptedProvider([]), sessionsDir: tempDir('other') });
    const expected = JSON.parse(JSON.stringify(agent.tools.definitions()));
    await agent.stop();
    expect(JSON.parse(result.stdout)).toEqual(expected);
    expect(expected.map((d: { function: { name: string } }) => d.function.name)).toContain('read_file');
  });

  it('lists scopes and flags, and MCP tools from the config file with their server', async () => {
    const workspace = tempDir('ws');
    mkdirSync(join(workspace, '.nanobot'));
    const server = resolve(import.meta.dirname, 'test-support', 'tiny-mcp-server.mjs');
    writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [server] } } }));
    const env = cleanEnv({ NANOBOT_WORKSPACE: workspace, NANOBOT_SESSIONS_DIR: tempDir('s') });
    const text = await runCli(['tools'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    // bubblewrap is installed by the test command (scripts/provision-test-deps.mjs), so the default 'auto' mode boxes commands.
    expect(text.stdout).toMatch(/^exec sandbox: bubblewrap \(auto\)$/m);
    expect(text.stdout).toMatch(/^read_file +Read /m);
    expect(text.stdout).toMatch(/scopes: core,subagent,memory · read-only · concurrent/);
    expect(text.stdout).toMatch(/^exec .*\n +scopes: core,subagent · exclusive/m);
    expect(text.stdout).toMatch(/^mcp_tiny_shout +Upper-cases a text\.\n +scopes: core · mcp server: tiny/m);

    const json = await runCli(['tools', '--json'], { env });
    const names = (JSON.parse(json.stdout) as { function: { name: string } }[]).map((d) => d.function.name);
    expect(names.at(-1)).toBe('mcp_tiny_shout');
    expect(names.slice(0, -1)).toEqual([...names.slice(0, -1)].sort());
  });

  it('a server that fails to start is named once, with one "failed to start"', async () => {
    const workspace = tempDir('ws');
    mkdirSync(join(workspace, '.nanobot'));
    writeFileSync(join(workspace, '.nanobot', 'config.json'), JSON.stringify({ mcpServers: { z: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }));
    const result = await runCli(['tools'], { env: cleanEnv({ NANOBOT_WORKSPACE: workspace, NANOBOT_SESSIONS_DIR: tempDir('s') }) });
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((l) => l.includes('failed to start'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^MCP server 'z' failed to start: /);
    expect(lines[0].match(/failed to start/g)).toHaveLength(1);
  });
});
