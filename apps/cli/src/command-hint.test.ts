import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { carriedFlags, formatHint, shellCommand, shellQuote } from './command-hint.js';

/** What bash makes of a command line: its words, one per line (printf '%s\n'). */
function bashWords(line: string): string[] {
  return execFileSync('bash', ['-c', `printf '%s\\n' ${line.replace(/^\S+/, '')}`], { encoding: 'utf8' }).split('\n').slice(0, -1);
}

describe('shell hints', () => {
  it('quotes only what a shell would change, and the shell reads every word back unchanged', () => {
    expect(shellQuote('chat-20261201-1234')).toBe('chat-20261201-1234');
    expect(shellQuote('web:abc')).toBe('web:abc');
    expect(shellQuote('my chat')).toBe("'my chat'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    const words = ['x', 'my chat', "it's", '$HOME', '`id`', 'a;b', '*', '~/x', '"q"', 'ünï'];
    expect(bashWords(shellCommand(words))).toEqual(words.slice(1));
  });

  it('repeats the flags that choose the sessions and the model', () => {
    expect(carriedFlags({ workspace: 'ws', 'sessions-dir': '/s', offline: true, session: 'x', message: 'hi', json: true })).toEqual(['-w', 'ws', '--sessions-dir', '/s', '--offline']);
    expect(carriedFlags({})).toEqual([]);
  });

  it('fits the terminal: on the same line when it fits, else below with \\ continuations that a shell joins', () => {
    const words = ['npx', '-y', 'pnpm@10.34.9', 'nanobot', 'chat', '--session', 'chat-20261201-194432-aa57'];
    expect(formatHint('resume with:', words, 120)).toBe('resume with: npx -y pnpm@10.34.9 nanobot chat --session chat-20261201-194432-aa57');
    const narrow = formatHint('session chat-20261201-194432-aa57 saved; resume with:', words, 40);
    const lines = narrow.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines.length).toBeGreaterThan(2);
    const command = lines.slice(lines.findIndex((l) => l.startsWith('  npx'))).join('\n');
    expect(bashWords(command.trim())).toEqual(words.slice(1));
  });
});
