import { describe, expect, it } from 'vitest';
import { parseSlashCommand } from './slash-commands.js';
import type { SlashCommandSpec } from './slash-commands.js';

const COMMANDS: SlashCommandSpec[] = [
  { name: 'new', description: 'new session' },
  { name: 'stop', description: 'stop', priority: true },
  { name: 'help', description: 'help' },
  { name: 'status', description: 'status', priority: true },
  { name: 'model', description: 'model', acceptsArgs: true },
];

describe('parseSlashCommand', () => {
  it.each([
    ['/new', { kind: 'command', name: 'new', args: '' }],
    ['  /NEW  ', { kind: 'command', name: 'new', args: '' }],
    ['/stop@nanobot_bot', { kind: 'command', name: 'stop', args: '' }],
    ['/model gpt-4o', { kind: 'command', name: 'model', args: 'gpt-4o' }],
  ])('%j is a command', (text, expected) => {
    expect(parseSlashCommand(text, COMMANDS)).toEqual(expected);
  });

  it.each(['/home/me/x.txt', '/home/me/x.txt what is in here?', '/tmp/', '// comment', '/ leading slash', 'hello /new', '/etc/hosts', '/shrug that was odd'])(
    '%j is user text',
    (text) => {
      expect(parseSlashCommand(text, COMMANDS)).toEqual({ kind: 'text' });
    },
  );

  it('rejects close misses and bare unknown commands', () => {
    expect(parseSlashCommand('/stpo', COMMANDS)).toEqual({ kind: 'reject', reply: 'Unknown command "/stpo". Did you mean "/stop"?' });
    expect(parseSlashCommand('/xyzzy', COMMANDS)).toEqual({ kind: 'reject', reply: 'Unknown command "/xyzzy". Use "/help" to list available commands.' });
    expect(parseSlashCommand('/new please', COMMANDS)).toEqual({ kind: 'reject', reply: 'Command "/new" does not accept arguments. Did you mean "/new"?' });
  });
});
