import type { CliFlags } from './parse-cli-args.js';
import { displayWidth, wrapWidth } from './terminal-width.js';

const SAFE_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;

/** `word` as a POSIX shell reads it back unchanged: as it is when safe, else in single quotes. Pure. */
export function shellQuote(word: string): string {
  if (word !== '' && SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Words as one shell command line. Pure. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

// The global flags that choose where sessions live and which model answers: a hint to continue
// a session repeats the ones given on the command line (the environment is the same shell's).
const CARRIED: readonly [keyof CliFlags, string][] = [
  ['workspace', '-w'],
  ['config', '-c'],
  ['sessions-dir', '--sessions-dir'],
  ['database-url', '--database-url'],
  ['provider', '--provider'],
  ['model', '--model'],
  ['base-url', '--base-url'],
  ['offline', '--offline'],
  ['context-window', '--context-window'],
  ['max-iterations', '--max-iterations'],
  ['no-stream', '--no-stream'],
];

/** The flags of `flags` a follow-up command needs to see the same sessions with the same model. Pure. */
export function carriedFlags(flags: CliFlags): string[] {
  const out: string[] = [];
  for (const [name, flag] of CARRIED) {
    const value = flags[name];
    if (value === undefined || value === false) continue;
    if (value === true) out.push(flag);
    else out.push(flag, String(value));
  }
  return out;
}

/**
 * A hint with a command to paste, laid out for a `width`-column terminal: `lead command` on one
 * line when it fits; otherwise `lead` on its own line and the command indented below it, broken
 * between words with ` \` continuations — pasted into a POSIX shell it is still one command. Pure.
 */
export function formatHint(lead: string, words: readonly string[], width: number): string {
  const command = shellCommand(words);
  if (displayWidth(lead) + 1 + displayWidth(command) <= width) return `${lead} ${command}`;
  const indent = '  ';
  const lines: string[] = [];
  let line = '';
  for (const word of words.map(shellQuote)) {
    const next = line === '' ? word : `${line} ${word}`;
    // Room for the indent of a continued line and the trailing ` \`.
    if (line !== '' && displayWidth(next) + indent.length + 4 > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  lines.push(line);
  const body = lines.map((l, i) => `${i === 0 ? indent : `${indent}  `}${l}${i < lines.length - 1 ? ' \\' : ''}`).join('\n');
  return `${wrapWidth(lead, width)}\n${body}`;
}
