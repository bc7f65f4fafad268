import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { ContextBuilder, SECTION_SEPARATOR } from '@nanobot/context-builder';
import { MemoryArtifactStore } from '@nanobot/governor';
import { Session, parseSessionFile, sessionKeyFromFileName } from '@nanobot/session';
import { buildCliAgent, openSessionStore } from '../build-cli-agent.js';
import { CALIBRATION_FILE, readCalibrationFile } from '../calibration-file.js';
import { CliError } from '../cli-error.js';
import type { ModelFacts } from '@nanobot/providers';
import { modelFactsNotice, openModelFacts } from '../cli-model-facts.js';
import { cliGovernorSettings } from '../cli-governor-settings.js';
import { commandName, wantsColor, type CliIo } from '../cli-io.js';
import { inspectSession, type SessionInspection, type TimelineMark } from '../inspect-session.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings, type CliSettings } from '../resolve-settings.js';
import { describeWarnings, latestSessionKey, loadSessionStrictly, malformedToolCallNotes } from '../session-selection.js';
import { TerminalRenderer } from '../terminal-renderer.js';
import { plural } from '../plural.js';

const MARK_STYLE: Record<TimelineMark, 'red' | 'yellow' | 'green' | 'cyan' | 'dim'> = {
  stripped: 'red',
  snipped: 'red',
  backfilled: 'green',
  offloaded: 'yellow',
  truncated: 'yellow',
  compacted: 'yellow',
  moved: 'cyan',
  renamed: 'cyan',
  changed: 'cyan',
  'in-flight': 'dim',
  'not-replayed': 'red',
  consolidated: 'yellow',
};

function looksLikePath(arg: string): boolean {
  return arg.endsWith('.jsonl') || arg.includes('/') || arg.includes('\\');
}

/** Loads the session named on the command line (a key or a file), refusing corrupt files. */
async function loadTarget(arg: string | undefined, settings: Awaited<ReturnType<typeof resolveSettings>>, cwd: string, io: CliIo): Promise<{ key: string; session: Session; file: string }> {
  if (arg !== undefined && looksLikePath(arg)) {
    const file = resolve(cwd, arg);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliError('CLI_SESSION', `cannot read session file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
    const parsed = parseSessionFile(text);
    if (parsed.warnings.length > 0) throw new CliError('CLI_SESSION', `session file ${file} has ${describeWarnings(parsed.warnings)}; nothing was changed`);
    const key = parsed.key ?? sessionKeyFromFileName(basename(file)) ?? basename(file, '.jsonl');
    const session = new Session({
      key,
      messages: parsed.messages,
      metadata: parsed.metadata,
      lastConsolidated: parsed.lastConsolidated,
      ...(parsed.createdAt ? { createdAt: parsed.createdAt } : {}),
      ...(parsed.updatedAt ? { updatedAt: parsed.updatedAt } : {}),
    });
    return { key, session, file };
  }
  const store = await openSessionStore(settings);
  const key = arg ?? (await latestSessionKey(store));
  if (key === null) throw new CliError('CLI_SESSION', `no stored sessions in ${settings.sessionsDir} (run "${commandName(io)} chat" or "${commandName(io)} run -m …" first)`);
  const file = store.pathFor(key);
  if (!(await stat(file).catch(() => null))) throw new CliError('CLI_SESSION', `no session named "${key}" in ${settings.sessionsDir}`);
  const { session } = await loadSessionStrictly(store, key);
  return { key, session, file };
}

function archivedSummary(session: Session): { text: string; lastActive: string } | null {
  const stored = session.metadata._last_summary as { text?: unknown; last_active?: unknown } | undefined;
  if (!stored || typeof stored.text !== 'string' || stored.text.trim() === '') return null;
  return { text: stored.text, lastActive: typeof stored.last_active === 'string' ? stored.last_active : session.updatedAt };
}

/**
 * `nanobot inspect [session]`: what the governor would send for the session's latest turn and
 * why (see `inspectSession`). Reads only: offloads go to an in-memory store, the session file is
 * parsed, never saved.
 */
export async function inspectCommand(flags: CliFlags, positionals: string[], io: CliIo): Promise<number> {
  const settings = await inspectSettings(flags, io);
  const { key, session, file } = await loadTarget(positionals[0] ?? flags.session, settings, io.cwd, io);
  for (const line of malformedToolCallNotes(key, session.messages)) io.stderr.write(`${line}\n`);
  // Governed as `run` governs: the same model, window, reply size and usage calibration.
  const calibrator =
    settings.model.kind === 'remote' ? readCalibrationFile(join(settings.sessionsDir, CALIBRATION_FILE), (line) => io.stderr.write(`${line}\n`)) : null;
  const governor = cliGovernorSettings(settings, calibrator, await inspectModelFacts(settings, io));
  // The tools come from an offline agent: nothing here talks to the model.
  const cli = await buildCliAgent({ ...settings, model: { kind: 'offline', reason: 'inspect only reads' } });
  let inspection: SessionInspection;
  try {
    const builder = new ContextBuilder({ workspace: settings.workspace });
    const summary = archivedSummary(session);
    const sections = await builder.buildSystemPromptSections({ channel: 'cli', sessionKey: key, ...(summary ? { sessionSummary: summary } : {}) });
    inspection = inspectSession({
      key,
      storedMessages: session.messages,
      history: session.getHistory(),
      lastConsolidated: session.lastConsolidated,
      sections,
      separator: SECTION_SEPARATOR,
      tools: cli.agent.tools.definitions(),
      contextWindowTokens: governor.contextWindowTokens,
      ...(governor.maxTokens !== undefined ? { maxOutputTokens: governor.maxTokens } : {}),
      ...(governor.maxToolResultChars !== undefined ? { maxToolResultChars: governor.maxToolResultChars } : {}),
      ...(governor.model !== undefined ? { model: governor.model } : {}),
      ...(governor.calibrator ? { calibrator: governor.calibrator } : {}),
      artifactStore: new MemoryArtifactStore({ root: (await import('@nanobot/runner')).defaultArtifactsDir(settings.sessionsDir) }),
    });
  } finally {
    await cli.close();
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ file, ...inspection }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(renderInspection(inspection, file, new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color'], io.stdout), spinner: false })));
  return 0;
}

/**
 * The model facts `run` would size its window with, when the window is left to the model: the
 * facts file beside the sessions, else the provider's models endpoint (it answers no prompt).
 * A problem is told on stderr; `null` without a window to find.
 */
async function inspectModelFacts(settings: CliSettings, io: CliIo): Promise<ModelFacts | null> {
  if (!settings.windowFromModel || settings.model.kind !== 'remote') return null;
  const { createResolvedProvider } = await import('@nanobot/providers');
  const facts = await openModelFacts(settings, await createResolvedProvider(settings.model.resolved));
  if (!facts) return null;
  const known = await facts.lookup(settings.model.model);
  const line = modelFactsNotice(known);
  if (line) io.stderr.write(`${line}\n`);
  return known;
}

/**
 * The settings `run` would use (its model among them). A provider set-up `run` would refuse
 * (e.g. a missing key) does not stop an inspection: it goes on without a model, and says so.
 */
async function inspectSettings(flags: CliFlags, io: CliIo): Promise<CliSettings> {
  try {
    return await resolveSettings({ flags, env: io.env, cwd: io.cwd });
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'CLI_PROVIDER') throw error;
    io.stderr.write(`${error.message}; inspecting without a model (cl100k_base estimates)\n`);
    return resolveSettings({ flags, env: io.env, cwd: io.cwd, offline: true });
  }
}

function n(value: number): string {
  return value.toLocaleString('en-US');
}

/** The inspection as text for a terminal. */
export function renderInspection(x: SessionInspection, file: string, r: TerminalRenderer): string {
  const out: string[] = [];
  const b = x.budget;
  out.push(`${r.paint('bold', 'session')}  ${x.session.key}  ${r.paint('dim', file)}`);
  out.push(
    `${r.paint('bold', 'stored')}   ${plural(x.session.storedMessages, 'message')}; replayed ${x.session.replayedMessages}` +
      (x.session.consolidatedMessages > 0 ? `; ${x.session.consolidatedMessages} consolidated into memory (not replayed)` : ''),
  );
  out.push(`${r.paint('bold', 'model')}    ${b.model ?? 'none (offline)'}; tokens counted with ${b.tokenizer}`);
  const calibrated = b.inputBudget !== undefined && b.inputBudget !== b.budget;
  out.push(
    `${r.paint('bold', 'budget')}   window ${n(b.contextWindowTokens)} − reply ${n(b.maxOutputTokens)} − safety 1,024 = ${n(b.inputBudget ?? b.budget)} input tokens` +
      (calibrated ? ` (${n(b.budget)} estimated, by the usage calibration)` : ''),
  );
  const pct = b.budget > 0 ? ` (${Math.round((b.tokensAfter / b.budget) * 100)}% of the budget)` : '';
  const verdict = b.windowTooSmall
    ? r.paint('red', `NO BUDGET: the window is smaller than the reply reserve (${n(b.maxOutputTokens)}) plus the safety margin (1,024); raise --context-window or lower maxTokens`)
    : b.fits
      ? r.paint('green', 'fits')
      : r.paint('red', 'OVER BUDGET');
  const billed = b.tokensCalibrated !== undefined && b.tokensCalibrated !== b.tokensAfter ? ` (${n(b.tokensCalibrated)} calibrated)` : '';
  out.push(`${r.paint('bold', 'estimate')} ${n(b.tokensBefore)} tokens before governance → ${n(b.tokensAfter)} sent${billed}${pct} ${verdict}`);
  if (x.toolsWarning) out.push(`${r.paint('bold', 'tools')}    ${r.paint('yellow', x.toolsWarning)}`);
  out.push('');
  out.push(r.paint('bold', `System prompt: ${x.systemPrompt.sections.length} sections, ${n(x.systemPrompt.tokens)} tokens; tools: ${x.tools.count} definitions, ${n(x.tools.tokens)} tokens`));
  for (const s of x.systemPrompt.sections) out.push(`  ${s.name.padEnd(16)} ${n(s.tokens).padStart(6)} tok  ${r.paint('dim', s.preview)}`);
  out.push('');
  out.push(r.paint('bold', 'Timeline (#n = position in the request, + added, - stored but not in the request; ✗ = not sent; IN-FLIGHT = part of the latest turn, compacted first when over budget)'));
  for (const e of x.timeline) {
    const pos = e.index !== null ? `#${String(e.index).padStart(3)}` : e.sent ? '   +' : '   -';
    const who = `${e.role}${e.name ? ` ${e.role === 'assistant' ? '→ ' : ''}${e.name}` : ''}`;
    const marks = e.marks.map((m) => r.paint(MARK_STYLE[m], m.toUpperCase())).join(' ');
    const tok = e.originalTokens !== undefined ? `${n(e.originalTokens)}→${n(e.tokens)}` : n(e.tokens);
    const line = `${pos} ${e.sent ? ' ' : '✗'} ${who.padEnd(24)} ${tok.padStart(11)} tok  ${marks}${marks ? '  ' : ''}${r.paint('dim', e.preview ? `"${e.preview}"` : '')}`;
    out.push(line);
    for (const detail of e.details.filter((_, i) => e.marks[i] !== 'in-flight')) out.push(`${' '.repeat(8)}${r.paint('dim', `↳ ${detail}`)}`);
  }
  out.push('');
  const counts = Object.entries(x.counts)
    .filter(([mark]) => mark !== 'in-flight')
    .map(([mark, count]) => `${mark} ${count}`);
  out.push(`${r.paint('bold', 'governance')} ${counts.length > 0 ? counts.join(', ') : 'nothing to do: the history is sent as stored'}`);
  return `${out.join('\n')}\n`;
}
