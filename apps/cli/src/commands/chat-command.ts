import { createInterface } from 'node:readline';
import type { TurnOutcome } from '@nanobot/runner';
import { buildCliAgent, openSessionStore } from '../build-cli-agent.js';
import { columnsOf, hintWords, wantsColor, type CliIo } from '../cli-io.js';
import { carriedFlags, formatHint, shellCommand } from '../command-hint.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings } from '../resolve-settings.js';
import { loadSessionStrictly, newSessionKey } from '../session-selection.js';
import { TerminalRenderer } from '../terminal-renderer.js';
import { plural } from '../plural.js';
import { MutableOutput } from '../mutable-output.js';
import type { McpProgress } from '../build-cli-agent.js';

const EXIT_WORDS = new Set(['/exit', '/quit', 'exit', 'quit']);

/**
 * `nanobot chat`: an interactive session on stdin (a terminal or a pipe). Lines are handled one
 * turn at a time, in order. Ctrl-C during a turn stops it (the loop answers open tool calls, so
 * the stored history stays legal) and a second Ctrl-C exits; Ctrl-C at the prompt asks for a
 * second one; end of input exits after the running turn. The session is saved after every step
 * and can be resumed with `--session`.
 */
export async function chatCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const settings = await resolveSettings({ flags, env: io.env, cwd: io.cwd });
  const tty = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const width = io.stderr.isTTY === true ? columnsOf(io, io.stderr) : undefined;
  const renderer = new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color']), spinner: io.stderr.isTTY === true, ...(width !== undefined ? { width } : {}) });
  // Hints are laid out for the terminal (80 columns on a pipe) and run as printed.
  const hint = (lead: string): string => formatHint(lead, hintWords(io, ['chat', '--session', sessionKey, ...carriedFlags(flags)]), width ?? 80);
  const store = await openSessionStore(settings);
  const sessionKey = flags.session ?? newSessionKey('chat');
  const { session, created, notices } = await loadSessionStrictly(store, sessionKey);

  // Read input from the very start: what is typed while the agent and its MCP servers start up
  // is kept and becomes the first turns. While the agent is busy, readline's echo is muted and
  // a submitted line goes to the scrollback as `› …` instead of onto the spinner line.
  const output = tty ? new MutableOutput(io.stdout) : undefined;
  if (output) output.muted = true;
  const rl = createInterface({ input: io.stdin, output, terminal: tty, historySize: 200 });
  rl.setPrompt(renderer.paint('cyan', '› '));
  const queue: string[] = [];
  let starting = true;
  let running = false;
  let closed = false;
  let wake: (() => void) | null = null;
  let onInterrupt: () => void = () => {
    // Ctrl-C before the agent is up: nothing to stop or save yet.
    renderer.stop();
    renderer.note(renderer.paint('dim', 'bye'));
    process.exit(130);
  };
  rl.on('SIGINT', () => onInterrupt());
  let promptShown = false;
  rl.on('line', (line) => {
    promptShown = false;
    queue.push(line);
    if (tty && (starting || running) && line.trim() !== '') renderer.note(renderer.paint('cyan', `› ${line}`));
    wake?.();
  });
  rl.on('close', () => {
    // Ctrl-D at the prompt: what follows starts on a line of its own, not after `› `.
    if (tty && promptShown) io.stdout.write('\n');
    promptShown = false;
    closed = true;
    wake?.();
  });

  const cli = await buildCliAgent(settings, {
    events: [renderer.sink],
    offlineDelayMs: tty ? 12 : 0,
    notice: (line) => renderer.note(renderer.paint('dim', line)),
    deferMcp: true,
    onMcpProgress: (p) => renderer.status(mcpProgressText(p)),
    demoCommand: shellCommand(hintWords(io, ['run', '--demo'])),
  });
  renderer.note(renderer.paint(cli.offline ? 'yellow' : 'dim', cli.modelLine));
  renderer.note(renderer.paint('dim', `workspace: ${settings.workspace}${settings.workspaceNote ? ` (${settings.workspaceNote})` : ''}`));
  if (cli.mcpServers.length > 0) {
    const line = `connecting ${plural(cli.mcpServers.length, 'MCP server')} at once: ${cli.mcpServers.join(', ')}…`;
    if (io.stderr.isTTY === true) renderer.status(line);
    else renderer.note(renderer.paint('dim', line));
    const started = Date.now();
    await cli.connectMcp();
    const tools = cli.mcp?.tools().length ?? 0;
    const up = cli.mcp?.status().filter((st) => st.state === 'connected').length ?? 0;
    renderer.stop();
    renderer.note(renderer.paint('dim', `MCP: ${up} of ${plural(cli.mcpServers.length, 'server')} ready, ${plural(tools, 'tool')} (${((Date.now() - started) / 1000).toFixed(1)} s)`));
  }
  renderer.note(renderer.paint(cli.sandboxLine.includes('none') ? 'yellow' : 'dim', cli.sandboxLine));
  if (flags.session !== undefined && !created) {
    const question = lastQuestion(session.messages);
    const preview = question !== null ? ` — last question: "${question}"` : '';
    renderer.note(renderer.paint('dim', `resumed session ${sessionKey} (${plural(session.messages.length, 'message')})${preview}`));
  } else {
    renderer.block(renderer.paint('dim', hint(`session ${sessionKey}; resume with:`)));
  }
  for (const line of notices) renderer.note(renderer.paint('yellow', line));
  renderer.note(renderer.paint('dim', 'Ctrl-C stops a turn, twice quits; Ctrl-D or /exit quits; /help lists commands.'));
  starting = false;
  if (output) output.muted = false;

  let armed = false; // a Ctrl-C was seen; the next one quits
  let quitting = false;
  let lastStatus = 0;
  let quit: ((code: number) => void) | null = null;
  const finished = new Promise<number>((resolve) => {
    quit = resolve;
  });

  const prompt = (): void => {
    if (tty && !closed) {
      rl.prompt();
      promptShown = true;
    }
  };
  const interrupt = (): void => {
    if (armed) {
      renderer.note(renderer.paint('dim', 'bye'));
      quit?.(0);
      return;
    }
    armed = true;
    if (running) {
      renderer.note(renderer.paint('yellow', '⏹ stopping the turn… (Ctrl-C again to quit)'));
      void cli.agent.ask('/stop', { sessionKey, channel: 'cli', chatId: 'direct' });
    } else {
      renderer.note(renderer.paint('dim', '(Ctrl-C again to quit, or type a message)'));
      prompt();
    }
  };
  const unsubscribe = io.onInterrupt(interrupt);
  // Deliveries of the `message` tool, and replies of background turns (subagent results), are
  // not answers to a line typed here: show them as they come.
  const offOutbound = cli.agent.bus.onOutbound((message) => {
    if (message.event === 'message_tool') renderer.write(`${renderer.paint('cyan', '✉')} ${message.content}\n`);
    else if (!running && message.metadata?.render_as !== 'text') {
      renderer.write(`${renderer.paint('cyan', '↩')} ${message.content}\n`);
      prompt();
    }
  });
  onInterrupt = interrupt;

  const worker = (async () => {
    prompt();
    for (;;) {
      if (queue.length === 0) {
        if (closed) return 0;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
        continue;
      }
      const text = queue.shift()!.trim();
      if (text === '') {
        prompt();
        continue;
      }
      if (EXIT_WORDS.has(text)) return 0;
      armed = false;
      running = true;
      if (output) output.muted = true;
      // The turn's set-up (history, prompt, first tokenisation) can take a moment: show it.
      renderer.status('thinking…');
      let outcome: TurnOutcome;
      try {
        outcome = await cli.agent.ask(text, { sessionKey, channel: 'cli', chatId: 'direct' });
      } finally {
        running = false;
        if (output) output.muted = false;
      }
      if (quitting) return 0;
      const reply = outcome.reply?.content ?? null;
      // A `message` tool delivery was already shown (✉) when it was published.
      if (reply !== null && outcome.reply?.event !== 'message_tool' && (outcome.result === null || !renderer.alreadyShown(reply))) renderer.write(`${reply}\n`);
      // /exit is the CLI's own command, so the agent's /help does not know it.
      if (text === '/help' && reply !== null) renderer.write('/exit — Quit (also /quit or Ctrl-D)\n');
      renderer.stop();
      if (outcome.result && outcome.result.stopReason !== 'completed' && outcome.result.stopReason !== 'aborted') lastStatus = 1;
      prompt();
    }
  })();

  const code = await Promise.race([worker, finished]);
  quitting = true;
  unsubscribe();
  offOutbound();
  rl.close();
  renderer.stop();
  // Waits for a running turn to stop and save (the loop aborts it), then closes MCP servers.
  await cli.close();
  renderer.block(renderer.paint('dim', hint(`session ${sessionKey} saved; resume with:`)));
  return code === 0 ? lastStatus : code;
}

/** The last thing the user asked (first line, 60 characters), never a slash command; null if none. */
export function lastQuestion(messages: readonly { role: string; content?: unknown; _command?: unknown }[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user' || typeof m.content !== 'string' || m._command === true) continue;
    const line = m.content.split('\n')[0].trim();
    if (line === '' || line.startsWith('/')) continue;
    return line.length > 60 ? `${line.slice(0, 59)}…` : line;
  }
  return null;
}

function mcpProgressText(p: McpProgress): string {
  const failed = p.failed.length > 0 ? `, ${p.failed.length} failed` : '';
  return `connecting MCP servers: ${p.connected.length} of ${p.total} ready${failed}${p.connected.length > 0 ? ` (${p.connected.join(', ')})` : ''}…`;
}
