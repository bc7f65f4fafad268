import { parseArgs } from 'node:util';

/** The commands the CLI knows. */
export type CliCommand = 'run' | 'chat' | 'inspect' | 'tools' | 'providers' | 'worker' | 'help';

/** Flags after parsing (strings stay strings; numbers are checked when settings are resolved). */
export interface CliFlags {
  help?: boolean;
  version?: boolean;
  workspace?: string;
  config?: string;
  provider?: string;
  model?: string;
  'base-url'?: string;
  offline?: boolean;
  'sessions-dir'?: string;
  'database-url'?: string;
  'context-window'?: string;
  'max-iterations'?: string;
  'no-stream'?: boolean;
  'no-color'?: boolean;
  session?: string;
  message?: string;
  json?: boolean;
  demo?: boolean;
}

/** A parsed command line, or the one-line reason it was refused. */
export type ParsedCommandLine =
  | { ok: true; command: CliCommand | null; flags: CliFlags; positionals: string[] }
  | { ok: false; error: string };

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  workspace: { type: 'string', short: 'w' },
  config: { type: 'string', short: 'c' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  offline: { type: 'boolean' },
  'sessions-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'context-window': { type: 'string' },
  'max-iterations': { type: 'string' },
  'no-stream': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  session: { type: 'string', short: 's' },
  message: { type: 'string', short: 'm' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
} as const;

const GLOBAL: readonly (keyof CliFlags)[] = [
  'help', 'version', 'workspace', 'config', 'provider', 'model', 'base-url', 'offline',
  'sessions-dir', 'database-url', 'context-window', 'max-iterations', 'no-stream', 'no-color',
];

/** Flags each command accepts besides the global ones. */
const COMMAND_FLAGS: Record<CliCommand, readonly (keyof CliFlags)[]> = {
  run: ['session', 'message', 'json', 'demo'],
  chat: ['session'],
  inspect: ['json', 'session'],
  tools: ['json'],
  providers: ['json'],
  worker: [],
  help: [],
};

const MAX_POSITIONALS: Record<CliCommand, number> = { run: 0, chat: 0, inspect: 1, tools: 0, providers: 0, worker: 0, help: 1 };

function isCommand(value: string): value is CliCommand {
  return Object.hasOwn(COMMAND_FLAGS, value);
}

/**
 * Parses argv with `node:util` parseArgs (strict: unknown flags and missing values are refused),
 * then checks that every flag given belongs to the command. Never throws: a refusal comes back
 * as `{ ok: false, error }` with a one-line reason, so the caller owns the exit code.
 */
export function parseCliArgs(argv: readonly string[]): ParsedCommandLine {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    // parseArgs messages are one line already; drop its advice about '--' which confuses here.
    const message = (error as Error).message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '');
    return { ok: false, error: message };
  }
  const flags = parsed.values as CliFlags;
  const [first, ...rest] = parsed.positionals;
  if (first === undefined) return { ok: true, command: null, flags, positionals: [] };
  if (!isCommand(first)) return { ok: false, error: `unknown command "${first}" (commands: run, chat, inspect, tools, providers, worker, help)` };
  const allowed = new Set<keyof CliFlags>([...GLOBAL, ...COMMAND_FLAGS[first]]);
  for (const name of Object.keys(flags) as (keyof CliFlags)[]) {
    if (!allowed.has(name)) return { ok: false, error: `option --${name} is not valid for "nanobot ${first}"` };
  }
  if (rest.length > MAX_POSITIONALS[first]) {
    return { ok: false, error: `unexpected argument "${rest[MAX_POSITIONALS[first]]}" for "nanobot ${first}"` };
  }
  return { ok: true, command: first, flags, positionals: rest };
}
