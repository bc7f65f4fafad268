import type { TurnOutcome } from '@nanobot/runner';
import { buildCliAgent } from '../build-cli-agent.js';
import { CliError } from '../cli-error.js';
import { columnsOf, hintWords, wantsColor, writeNotice, type CliIo } from '../cli-io.js';
import { carriedFlags, formatHint, shellCommand } from '../command-hint.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDemoWorkspace, removeDemoDirs } from '../demo-workspace.js';
import { jsonLinesSink } from '../json-lines-sink.js';
import { DEMO_NOTE_PATH } from '../offline-model.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings, type CliSettings } from '../resolve-settings.js';
import { loadSessionStrictly, newSessionKey } from '../session-selection.js';
import { TerminalRenderer } from '../terminal-renderer.js';
import { plural } from '../plural.js';

/** What the demo asks (the offline model plays the demo plan whatever the words). */
export const DEMO_PROMPT = 'Demo: look around this workspace, read a file, write a short note about it, check it with a shell command and tell me what you found.';

/** Exit status of a finished turn. */
export function exitCodeFor(outcome: TurnOutcome): number {
  // A turn run by another worker (--database-url) has no result here; its reply says how it ended.
  const fromReply = outcome.reply?.metadata?._stop_reason;
  const reason = outcome.result?.stopReason ?? (typeof fromReply === 'string' ? fromReply : undefined);
  if (reason === 'completed') return 0;
  if (reason === 'aborted') return 130;
  return 1;
}

/**
 * `nanobot run`: one turn (`-m` or `--demo`), then exit. Human output streams the reply on stdout
 * and tool activity on stderr; `--json` prints every runner event as a JSON line on stdout,
 * framed by a `cli_start` and a `cli_end` line. The first Ctrl-C stops the turn (history kept),
 * a second one exits at once.
 */
export async function runCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const demo = flags.demo === true;
  if (demo && flags.message !== undefined) throw new CliError('CLI_USAGE', 'use either --demo or -m "<message>", not both');
  if (!demo && (flags.message === undefined || flags.message.trim() === '')) {
    throw new CliError('CLI_USAGE', 'nanobot run needs -m "<message>" (or --demo for the offline demo)');
  }
  if (demo && flags.workspace !== undefined) {
    throw new CliError('CLI_USAGE', '--demo always runs in its own temporary workspace (removed afterwards); drop -w');
  }
  const settings = await resolveSettings({
    flags,
    // The demo's tools act in a throw-away workspace only, whatever NANOBOT_WORKSPACE says.
    env: demo ? { ...io.env, NANOBOT_WORKSPACE: undefined } : io.env,
    cwd: io.cwd,
    offline: demo,
    ...(demo ? { makeWorkspace: createDemoWorkspace } : {}),
  });
  // The demo's directories go when the process ends, however it ends (a second Ctrl-C included).
  const demoDirs = settings.temporaryWorkspace ? [settings.workspace, ...(settings.sessionsDir === `${settings.workspace}.sessions` ? [settings.sessionsDir] : [])] : [];
  const cleanUp = (): void => removeDemoDirs(demoDirs);
  if (demoDirs.length > 0) process.once('exit', cleanUp);
  try {
    return await runTurn(flags, io, settings, demo);
  } finally {
    if (demoDirs.length > 0) {
      cleanUp();
      process.removeListener('exit', cleanUp);
    }
  }
}

async function runTurn(flags: CliFlags, io: CliIo, settings: CliSettings, demo: boolean): Promise<number> {
  const json = flags.json === true;
  const sink = json ? jsonLinesSink(io.stdout) : null;
  const width = io.stderr.isTTY === true ? columnsOf(io, io.stderr) : undefined;
  const renderer = json
    ? null
    : new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color']), spinner: io.stderr.isTTY === true, ...(width !== undefined ? { width } : {}) });
  const notice = (line: string): void => {
    if (sink) sink.line({ type: 'cli_notice', message: line });
    else renderer!.note(renderer!.paint('dim', line));
  };

  let sessionKey: string;
  const { openSessionStore } = await import('../build-cli-agent.js');
  const store = await openSessionStore(settings);
  if (flags.session !== undefined) {
    sessionKey = flags.session;
    for (const line of (await loadSessionStrictly(store, sessionKey)).notices) notice(line);
  } else {
    sessionKey = newSessionKey(demo ? 'demo' : 'run');
  }

  const turnErrors: string[] = [];
  const cli = await buildCliAgent(settings, {
    demo,
    onError: (error, context) => turnErrors.push(`${context.stage}: ${error instanceof Error ? error.message : String(error)}`),
    events: [sink ?? renderer!.sink],
    offlineDelayMs: !json && io.stdout.isTTY ? 12 : 0,
    notice,
    demoCommand: shellCommand(hintWords(io, ['run', '--demo'])),
  });
  if (sink) {
    sink.line({
      type: 'cli_start',
      session: sessionKey,
      workspace: settings.workspace,
      sessionsDir: settings.sessionsDir,
      offline: cli.offline,
      provider: cli.provider.name,
      model: settings.model.kind === 'remote' ? settings.model.model : cli.provider.defaultModel,
    });
    if (cli.offline) sink.line({ type: 'cli_notice', message: cli.modelLine });
    if (settings.workspaceNote) sink.line({ type: 'cli_notice', message: `workspace: ${settings.workspace} (${settings.workspaceNote})` });
  } else {
    renderer!.note(renderer!.paint(cli.offline ? 'yellow' : 'dim', cli.modelLine));
    if (settings.temporaryWorkspace) renderer!.note(renderer!.paint('dim', `workspace: ${settings.workspace} (a fresh temporary copy with sample files)`));
    else renderer!.note(renderer!.paint('dim', `workspace: ${settings.workspace}${settings.workspaceNote ? ` (${settings.workspaceNote})` : ''}`));
  }

  // The `message` tool delivers through the bus (and then the loop suppresses the plain reply).
  let background = false; // the turn is over; replies now come from background subagents
  const offOutbound = cli.agent.bus.onOutbound((message) => {
    if (background && message.event !== 'message_tool' && message.metadata?.render_as !== 'text') {
      if (sink) sink.line({ type: 'cli_background', content: message.content });
      else if (renderer!.lastStreamed.trim() !== message.content.trim()) renderer!.write(`${renderer!.paint('cyan', '↩')} ${message.content}\n`);
      return;
    }
    if (message.event !== 'message_tool') return;
    if (sink) sink.line({ type: 'cli_message', content: message.content, ...(message.media ? { media: message.media } : {}) });
    else renderer!.write(`${renderer!.paint('cyan', '✉')} ${message.content}\n`);
  });
  let replyShown = false;
  // The reply, unless it already streamed or was a `message` tool delivery (shown with ✉).
  const showReply = (turn: TurnOutcome): void => {
    const text = turn.reply?.content ?? null;
    if (sink || replyShown || text === null || turn.reply?.event === 'message_tool') return;
    replyShown = true;
    if (!renderer!.alreadyShown(text)) renderer!.write(`${text}\n`);
  };
  let interrupts = 0;
  const unsubscribe = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts === 1) {
      notice('stopping the turn… (Ctrl-C again to quit at once)');
      void cli.agent.ask('/stop', { sessionKey, channel: 'cli', chatId: 'direct' });
    } else {
      process.exit(130);
    }
  });
  let outcome: TurnOutcome;
  try {
    outcome = await cli.agent.ask(demo ? DEMO_PROMPT : flags.message!, { sessionKey, channel: 'cli', chatId: 'direct' });
    // A one-shot run must not drop what it started in the background: wait for it to report.
    const waiting = cli.agent.subagents?.running(sessionKey) ?? 0;
    if (waiting > 0 && interrupts === 0) {
      background = true;
      showReply(outcome);
      notice(`waiting for ${plural(waiting, 'background task')} to report… (Ctrl-C stops)`);
      await cli.agent.subagents!.idle();
      await cli.agent.loop.idle();
    }
  } finally {
    unsubscribe();
    offOutbound();
    await cli.close();
  }
  const reply = outcome.reply?.content ?? null;
  if (!background) showReply(outcome);
  // The loop could not run the turn at all (nothing was answered): say why, and never "saved".
  const failure = outcome.result === null && reply === null && turnErrors.length > 0 ? turnErrors[turnErrors.length - 1].split('\n')[0] : null;
  if (sink) {
    sink.line({ type: 'cli_end', session: sessionKey, stopReason: outcome.result?.stopReason ?? null, reply, ...(failure ? { error: failure } : {}) });
  } else if (failure) {
    renderer!.stop();
    writeNotice(io, `nanobot: the turn failed (${failure}); the message may not have been saved`);
  } else {
    renderer!.stop();
    if (settings.temporaryWorkspace) {
      const note = await readFile(join(settings.workspace, DEMO_NOTE_PATH), 'utf8').catch(() => null);
      if (note !== null) renderer!.note(renderer!.paint('dim', `the note the demo wrote (${DEMO_NOTE_PATH}):\n${note.trimEnd().replace(/^/gm, '  ')}`));
      renderer!.block(
        renderer!.paint('dim', formatHint("the demo's temporary workspace is removed; to use the tools on your own files, set a provider key (e.g. OPENAI_API_KEY) and run:", hintWords(io, ['chat']), width ?? 80)),
      );
    } else {
      renderer!.block(renderer!.paint('dim', formatHint(`session ${sessionKey} saved; continue with:`, hintWords(io, ['chat', '--session', sessionKey, ...carriedFlags(flags)]), width ?? 80)));
    }
  }
  return exitCodeFor(outcome);
}
