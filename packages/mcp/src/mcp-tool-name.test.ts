import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TOOL_NAME_PATTERN, mcpToolName, sanitizeNamePart } from './mcp-tool-name.js';

describe('mcpToolName', () => {
  it('prefixes server and tool', () => {
    expect(mcpToolName('git', 'status')).toBe('mcp_git_status');
    expect(mcpToolName('fs', 'read-file')).toBe('mcp_fs_read-file');
  });

  it('replaces each run of rejected characters with one underscore, as the reference does', () => {
    expect(mcpToolName('my.server', 'get data/v2')).toBe('mcp_my_server_get_data_v2');
    expect(mcpToolName('a', 'x..y')).toBe('mcp_a_x_y');
    expect(sanitizeNamePart('日本')).toBe('_');
    expect(sanitizeNamePart('')).toBe('unnamed');
  });

  it('caps long names at 64 characters with a stable hash suffix that keeps them apart', () => {
    const long = 'x'.repeat(80);
    const a = mcpToolName('server', `${long}_a`);
    const b = mcpToolName('server', `${long}_b`);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(mcpToolName('server', `${long}_a`)).toBe(a);
    expect(a.startsWith('mcp_server_xxx')).toBe(true);
  });

  it('always yields a name providers accept (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 100 }), (server, tool) => {
        const name = mcpToolName(server, tool);
        expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(name.startsWith('mcp_')).toBe(true);
        expect(mcpToolName(server, tool)).toBe(name);
      }),
    );
  });

  it('leaves already-safe short names unchanged (property)', () => {
    const safe = fc.stringMatching(/^[a-zA-Z0-9_-]{1,20}$/);
    fc.assert(fc.property(safe, safe, (server, tool) => mcpToolName(server, tool) === `mcp_${server}_${tool}`));
  });
});
