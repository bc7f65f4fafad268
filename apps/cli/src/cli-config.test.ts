import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCliConfig } from './cli-config.js';
import { CliError } from './cli-error.js';

const file = (body: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'nanobot-cfg-')), 'config.json');
  writeFileSync(path, body);
  return path;
};

describe('loadCliConfig', () => {
  it('reads every field and parses MCP servers with @nanobot/mcp defaults', async () => {
    const config = await loadCliConfig(
      file(JSON.stringify({ provider: 'openai', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', contextWindowTokens: 8192, tools: { exec: false }, mcpServers: { fs: { command: 'node', args: ['s.js'] } } })),
      true,
    );
    expect(config).toMatchObject({ provider: 'openai', model: 'm', contextWindowTokens: 8192, tools: { exec: false } });
    expect(config.mcpServers?.fs).toMatchObject({ transport: 'stdio', command: 'node', toolTimeout: 30, enabled: true });
  });

  it('a missing default file is empty; a missing named file is an error', async () => {
    expect(await loadCliConfig('/no/such/dir/config.json', false)).toEqual({});
    await expect(loadCliConfig('/no/such/dir/config.json', true)).rejects.toThrow(/no such file/);
  });

  it('refuses typos and wrong types with the field named, on one line, leaving the file alone', async () => {
    const body = '{"modle": "x", "temperature": 9}';
    const path = file(body);
    const error = await loadCliConfig(path, false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('CLI_CONFIG');
    expect((error as Error).message).toMatch(/temperature: .*; \(top level\): Unrecognized key.*modle|modle.*temperature/);
    expect((error as Error).message).not.toMatch(/\n/);
    expect(readFileSync(path, 'utf8')).toBe(body);
  });
});
