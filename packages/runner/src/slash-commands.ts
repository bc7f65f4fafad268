import { similarityRatio } from './similarity-ratio.js';

/** A registered slash command. */
export interface SlashCommandSpec {
  /** Name without the slash, lower-case, e.g. `new`. */
  name: string;
  /** One line for `/help`. */
  description: string;
  /** Whether text after the name is accepted (`/model gpt-4o`). Default false. */
  acceptsArgs?: boolean;
  /** Runs outside the session's queue, even while a turn is running (`/stop`, `/status`). */
  priority?: boolean;
}

/** How a message was read. */
export type ParsedInput =
  | { kind: 'text' }
  | { kind: 'command'; name: string; args: string }
  | { kind: 'reject'; reply: string };

const COMMAND_WORD = /^\/([A-Za-z][A-Za-z0-9_-]*)(?:@[A-Za-z0-9_]+)?$/;
const SIMILARITY_CUTOFF = 0.6;

function closest(word: string, names: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = SIMILARITY_CUTOFF;
  for (const name of names) {
    const score = similarityRatio(word, name);
    if (score >= bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Reads a message as a slash command or as plain text. A first word that is not command-shaped
 * (`/home/me/x.txt`, `/tmp/`, `//`) is always text: the reference rejected any text starting
 * with `/`, so a pasted path never reached the model. An unknown command-shaped word is
 * rejected only when it is the whole message or close to a real command; otherwise the text
 * goes to the model (`/shrug that was odd`). Matching is case-insensitive and a `@botname`
 * suffix is ignored. Pure.
 */
export function parseSlashCommand(text: string, commands: readonly SlashCommandSpec[]): ParsedInput {
  const trimmed = text.trim();
  if (!trimmed.startsWith('/')) return { kind: 'text' };
  const space = trimmed.search(/\s/);
  const word = space < 0 ? trimmed : trimmed.slice(0, space);
  const rest = space < 0 ? '' : trimmed.slice(space).trim();
  const match = COMMAND_WORD.exec(word);
  if (!match) return { kind: 'text' };
  const name = match[1].toLowerCase();
  const spec = commands.find((c) => c.name === name);
  const display = `/${name}`;
  if (spec) {
    if (rest !== '' && !spec.acceptsArgs) {
      return { kind: 'reject', reply: `Command "${display}" does not accept arguments. Did you mean "${display}"?` };
    }
    return { kind: 'command', name, args: rest };
  }
  const suggestion = closest(name, commands.map((c) => c.name));
  if (suggestion !== null) return { kind: 'reject', reply: `Unknown command "${word}". Did you mean "/${suggestion}"?` };
  if (rest === '') return { kind: 'reject', reply: `Unknown command "${word}". Use "/help" to list available commands.` };
  return { kind: 'text' };
}
