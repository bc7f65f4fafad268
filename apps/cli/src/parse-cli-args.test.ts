import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from './parse-cli-args.js';

describe('parseCliArgs', () => {
  it('reads a command, its flags and global flags in any order', () => {
    expect(parseCliArgs(['-w', '/ws', 'run', '-m', 'hi', '--json'])).toEqual({
      ok: true,
      command: 'run',
      flags: { workspace: '/ws', message: 'hi', json: true },
      positionals: [],
    });
    expect(parseCliArgs(['inspect', 'my-session', '--context-window', '9000'])).toMatchObject({ ok: true, command: 'inspect', positionals: ['my-session'] });
    expect(parseCliArgs([])).toEqual({ ok: true, command: null, flags: {}, positionals: [] });
    expect(parseCliArgs(['--help'])).toMatchObject({ ok: true, command: null, flags: { help: true } });
  });

  it('refuses unknown flags, unknown commands, flags of another command and extra arguments', () => {
    expect(parseCliArgs(['run', '--nope'])).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown option '--nope'/) });
    expect(parseCliArgs(['fly'])).toMatchObject({ ok: false, error: expect.stringMatching(/unknown command "fly"/) });
    expect(parseCliArgs(['chat', '--json'])).toMatchObject({ ok: false, error: 'option --json is not valid for "nanobot chat"' });
    expect(parseCliArgs(['tools', 'x'])).toMatchObject({ ok: false, error: 'unexpected argument "x" for "nanobot tools"' });
    expect(parseCliArgs(['run', '-m'])).toMatchObject({ ok: false });
  });

  it('never throws and never returns a multi-line error, whatever argv holds', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('run', 'chat', '-m', '--json', '-w', '--', '-', '--demo', '-x'))), (argv) => {
        const frozen = Object.freeze([...argv]);
        const parsed = parseCliArgs(frozen);
        if (!parsed.ok) expect(parsed.error).not.toMatch(/\n/);
      }),
      { numRuns: 300 },
    );
  });
});
