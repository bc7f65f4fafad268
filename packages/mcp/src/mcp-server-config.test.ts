import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@nanobot/schema';
import { mcpServersConfigSchema, parseMcpServersConfig } from './mcp-server-config.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('parseMcpServersConfig', () => {
  it('reads stdio and HTTP entries and fills defaults, without mutating the input', () => {
    const input = deepFreeze({
      git: { command: 'uvx', args: ['mcp-server-git'], env: { GIT_DIR: '/repo' } },
      docs: { url: 'http://127.0.0.1:9000/mcp', headers: { Authorization: 'Bearer x' }, toolTimeout: 5 },
    });
    const parsed = parseMcpServersConfig(input);
    expect(parsed.git).toEqual({
      transport: 'stdio',
      command: 'uvx',
      args: ['mcp-server-git'],
      env: { GIT_DIR: '/repo' },
      toolTimeout: 30,
      enabledTools: ['*'],
      enabled: true,
    });
    expect(parsed.docs).toEqual({
      transport: 'http',
      url: 'http://127.0.0.1:9000/mcp',
      headers: { Authorization: 'Bearer x' },
      toolTimeout: 5,
      enabledTools: ['*'],
      enabled: true,
    });
  });

  it('accepts nanobot-style type fields and re-parses its own output', () => {
    const parsed = parseMcpServersConfig({
      a: { type: 'stdio', command: 'node', cwd: '/tmp' },
      b: { type: 'streamableHttp', url: 'https://example.test/mcp' },
    });
    expect(parseMcpServersConfig(parsed)).toEqual(parsed);
    expect(parsed.a).toMatchObject({ transport: 'stdio', cwd: '/tmp', args: [] });
  });

  it('treats a missing section as no servers', () => {
    expect(parseMcpServersConfig(undefined)).toEqual({});
  });

  it.each([
    [{ x: { command: 'a', url: 'http://h/mcp' } }, 'mcpServers.x: a server entry has either "command" (stdio) or "url"'],
    [{ x: { args: ['a'] } }, 'needs "command" (stdio) or "url"'],
    [{ x: { url: 'ftp://h/mcp' } }, 'mcpServers.x.url: url must be an http(s) URL'],
    [{ x: { url: 'http://h/mcp', type: 'sse' } }, 'mcpServers.x.type: the legacy SSE transport is not supported'],
    [{ x: { command: 'a', agrs: ['typo'] } }, 'agrs'],
    [{ x: { command: '' } }, 'mcpServers.x.command: command must not be empty'],
    [{ x: { command: 'a', toolTimeout: -1 } }, 'mcpServers.x.toolTimeout'],
    [{ x: { command: 'a', env: { A: 1 } } }, 'mcpServers.x.env.A'],
    [{ x: 'node server.js' }, 'a server entry must be an object'],
    [{ '': { command: 'a' } }, 'server names must not be empty'],
  ])('rejects %j with a clear message', (input, message) => {
    expect(() => parseMcpServersConfig(input)).toThrow(ConfigurationError);
    expect(() => parseMcpServersConfig(input)).toThrow(message);
  });

  it('reports every bad entry at once', () => {
    try {
      parseMcpServersConfig({ a: { command: '' }, b: { url: 'nope' } });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('mcpServers.a.command');
      expect((error as Error).message).toContain('mcpServers.b.url');
      expect((error as ConfigurationError).code).toBe('CONFIGURATION_ERROR');
    }
  });

  it('exports the zod schema for config-file readers', () => {
    const result = mcpServersConfigSchema.safeParse({ s: { command: 'node' } });
    expect(result.success).toBe(true);
  });
});
