import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from './create-builtin-tools.js';

describe('createBuiltinTools', () => {
  const all = createBuiltinTools({
    workspace: '/tmp',
    messageSender: { send: async () => undefined },
    subagentSpawner: { spawn: async () => ({ kind: 'no_runtime' }) },
  });
  const byName = new Map(all.map((t) => [t.name, t]));

  it('registers every built-in with the reference flags and scopes', () => {
    expect([...byName.keys()].sort()).toEqual(
      ['apply_patch', 'edit_file', 'exec', 'find_files', 'grep', 'list_dir', 'list_exec_sessions', 'message', 'read_file', 'spawn', 'web_fetch', 'web_search', 'write_file', 'write_stdin'],
    );
    const flags = Object.fromEntries(all.map((t) => [t.name, [t.readOnly, t.exclusive, [...t.scopes].sort().join(',')]]));
    expect(flags).toEqual({
      read_file: [true, false, 'core,memory,subagent'],
      write_file: [false, false, 'core,memory,subagent'],
      edit_file: [false, false, 'core,memory,subagent'],
      apply_patch: [false, false, 'core,subagent'],
      list_dir: [true, false, 'core,subagent'],
      find_files: [true, false, 'core,subagent'],
      grep: [true, false, 'core,subagent'],
      exec: [false, true, 'core,subagent'],
      write_stdin: [false, true, 'core,subagent'],
      list_exec_sessions: [true, false, 'core,subagent'],
      web_fetch: [true, false, 'core,subagent'],
      web_search: [true, false, 'core,subagent'],
      message: [false, false, 'core'],
      spawn: [false, false, 'core'],
    });
  });

  it('declares the traits the governor reads: the reference\'s compactable set and read_file as rereadable', () => {
    // The reference decides these by name (governance.md, "Constants": COMPACTABLE_TOOLS and
    // TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS); the built-ins declare the same sets, so behaviour with the
    // built-ins is unchanged while a user's tool that only shares a name gets nothing.
    const compactable = ['exec', 'find_files', 'grep', 'list_dir', 'list_exec_sessions', 'read_file', 'web_fetch', 'web_search'];
    expect(all.filter((t) => t.traits.compactable).map((t) => t.name).sort()).toEqual(compactable);
    expect(all.filter((t) => t.traits.rereadable !== null).map((t) => t.name)).toEqual(['read_file']);
    expect(byName.get('read_file')!.traits).toEqual({ readOnly: true, compactable: true, rereadable: { offsetParam: 'offset', limitParam: 'limit', unit: 'lines', firstOffset: 1 } });
    for (const tool of all) expect(tool.traits.readOnly).toBe(tool.readOnly);
  });

  it('subagent scope excludes message and spawn', () => {
    const sub = all.filter((t) => t.scopes.includes('subagent')).map((t) => t.name);
    expect(sub).not.toContain('message');
    expect(sub).not.toContain('spawn');
  });

  it('only concurrency-safe tools are the read-only, non-exclusive ones', () => {
    expect(all.filter((t) => t.concurrencySafe).map((t) => t.name).sort()).toEqual(['find_files', 'grep', 'list_dir', 'list_exec_sessions', 'read_file', 'web_fetch', 'web_search']);
  });

  it('the reference parameter constraints reach the definitions', () => {
    const params = (name: string) => byName.get(name)!.toSchema().function.parameters as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    expect(params('read_file').required).toEqual(['path']);
    expect(params('grep').properties.pattern.minLength).toBe(1);
    expect(params('grep').properties.head_limit).toMatchObject({ minimum: 0, maximum: 1000 });
    expect(params('find_files').properties.offset).toMatchObject({ minimum: 0, maximum: 100000 });
    expect(params('exec').properties.max_output_chars).toMatchObject({ minimum: 1000, maximum: 50000 });
    expect(params('web_fetch').properties.maxChars).toMatchObject({ minimum: 100 });
    expect(params('web_search').properties.count).toMatchObject({ minimum: 1, maximum: 10 });
    expect(params('spawn').properties.temperature).toMatchObject({ minimum: 0, maximum: 2 });
    // As the reference: find_files and grep accept unknown arguments, the others reject them.
    expect(params('find_files')).not.toHaveProperty('additionalProperties');
    expect(params('read_file')).toHaveProperty('additionalProperties', false);
  });

  it('families can be left out; message/spawn need their interfaces', () => {
    const names = createBuiltinTools({ exec: false, web: false }).map((t) => t.name);
    expect(names).toEqual(['read_file', 'write_file', 'edit_file', 'apply_patch', 'list_dir', 'find_files', 'grep']);
  });
});
