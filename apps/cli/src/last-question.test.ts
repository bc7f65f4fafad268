import { describe, expect, it } from 'vitest';
import { lastQuestion } from './commands/chat-command.js';

describe('the resume banner\'s last question', () => {
  it('is the last thing the user asked, never a slash command or a command row', () => {
    expect(
      lastQuestion([
        { role: 'user', content: 'what is in notes.md?\n[Runtime Context]\n…' },
        { role: 'assistant', content: 'A plan.' },
        { role: 'user', content: '/help', _command: true },
        { role: 'assistant', content: 'commands…', _command: true },
        { role: 'user', content: '/status' },
      ]),
    ).toBe('what is in notes.md?');
    expect(lastQuestion([{ role: 'user', content: '/new' }])).toBeNull();
    expect(lastQuestion([{ role: 'user', content: 'x'.repeat(80) }])).toBe(`${'x'.repeat(59)}…`);
  });
});
