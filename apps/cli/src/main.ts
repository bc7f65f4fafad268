import { CLI_VERSION, COMMAND_HELP, MAIN_HELP } from './help-text.js';
import { hintCommand, writeNotice, type CliIo } from './cli-io.js';
import { parseCliArgs } from './parse-cli-args.js';

/** Exit status for bad input (flags, workspace, config, session): nothing was run or changed. */
export const EXIT_BAD_INPUT = 2;

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').trim();
}

/**
 * Runs one `nanobot` invocation and resolves with its exit status. Never rejects: refusals and
 * failures are printed as one `nanobot: …` line on stderr. Heavy modules are imported only by
 * the command that needs them, so `--help` and `--version` load nothing else.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    writeNotice(io, `nanobot: ${parsed.error} (see ${hintCommand(io, ['--help'])})`);
    return EXIT_BAD_INPUT;
  }
  const { command, flags, positionals } = parsed;
  if (flags.version) {
    io.stdout.write(`nanobot ${CLI_VERSION}\n`);
    return 0;
  }
  if (command === null || command === 'help' || flags.help) {
    const topic = command === 'help' ? positionals[0] : command;
    if (topic !== undefined && topic !== null && !Object.hasOwn(COMMAND_HELP, topic)) {
      io.stderr.write(`nanobot: no help for "${topic}" (commands: run, chat, inspect, tools, providers, worker)\n`);
      return EXIT_BAD_INPUT;
    }
    io.stdout.write(topic ? COMMAND_HELP[topic] : MAIN_HELP);
    return 0;
  }
  try {
    switch (command) {
      case 'run':
        return await (await import('./commands/run-command.js')).runCommand(flags, io);
      case 'chat':
        return await (await import('./commands/chat-command.js')).chatCommand(flags, io);
      case 'inspect':
        return await (await import('./commands/inspect-command.js')).inspectCommand(flags, positionals, io);
      case 'tools':
        return await (await import('./commands/tools-command.js')).toolsCommand(flags, io);
      case 'providers':
        return await (await import('./commands/providers-command.js')).providersCommand(flags, io);
      case 'worker':
        return await (await import('./commands/worker-command.js')).workerCommand(flags, io);
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const bad = typeof code === 'string' && code.startsWith('CLI_');
    const message = error instanceof Error ? error.message : String(error);
    writeNotice(io, `nanobot: ${oneLine(message)}`);
    return bad ? EXIT_BAD_INPUT : 1;
  }
}
