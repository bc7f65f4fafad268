import { readFile } from 'node:fs/promises';
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
import { columnsOf, hintCommand, wantsColor, writeNotice, type CliIo } from '../cli-io.js';
import { carriedFlags } from '../command-hint.js';
import { inspectSession, type SessionInspection, type TimelineMark } from '../inspect-session.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings, type CliSettings } from '../resolve-settings.js';
import { describeWarnings, latestSessionKey, loadSessionStrictly, malformedToolCallNotes, storedLocation } from '../session-selection.js';
import { TerminalRenderer } from '../terminal-renderer.js';
import { plural } from '../plural.js';
import { displayWidth, fitWidth, wrapWidth } from '../terminal-width.js';

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
async function loadTarget(arg: string | undefined, settings: Awaited<ReturnType<typeof resolveSettings>>, cwd: string, io: CliIo, flags: CliFlags): Promise<{ key: string; session: Session; file: string }> {
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
  if (key === null) throw new CliError('CLI_SESSION', `no stored sessions in ${settings.sessionsDir} (start one with: ${hintCommand(io, ['chat', ...carriedFlags(flags)])})`);
  const file = await storedLocation(store, key);
  if (file === null) throw new CliError('CLI_SESSION', `no session named "${key}" in ${settings.sessionsDir}`);
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
  const { key, session, file } = await loadTarget(positionals[0] ?? flags.session, settings, io.cwd, io, flags);
  for (const line of malformedToolCallNotes(key, session.messages)) writeNotice(io, line);
  // Governed as `run` governs: the same model, window, reply size and usage calibration.
  const calibrator =
    settings.model.kind === 'remote' ? readCalibrationFile(join(settings.sessionsDir, CALIBRATION_FILE), (line) => writeNotice(io, line)) : null;
  const governor = cliGovernorSettings(settings, calibrator, await inspectModelFacts(settings, io));
  // The tools come from an offline agent: nothing here talks to the model.
  const cli = await buildCliAgent({ ...settings, model: { kind: 'offline', reason: 'inspect only reads' } });
  let inspection: SessionInspection;
  const mcpServers = new Map((cli.mcp?.tools() ?? []).map((info) => [info.name, info.server]));
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
      // The built-ins' declared traits, as the runner passes them: compaction follows them.
      toolTraits: cli.agent.tools.toolTraits(),
      contextWindowTokens: governor.contextWindowTokens,
      ...(governor.maxTokens !== undefined ? { maxOutputTokens: governor.maxTokens } : {}),
      ...(governor.maxToolResultChars !== undefined ? { maxToolResultChars: governor.maxToolResultChars } : {}),
      ...(governor.model !== undefined ? { model: governor.model } : {}),
      ...(governor.calibrator ? { calibrator: governor.calibrator } : {}),
      artifactStore: new MemoryArtifactStore({ root: (await import('@nanobot/runner')).defaultArtifactsDir(settings.sessionsDir) }),
      mcpServerOf: (name) => mcpServers.get(name),
      configPath: settings.configPath,
    });
  } finally {
    await cli.close();
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ file, ...inspection }, null, 2)}\n`);
    return 0;
  }
  const renderer = new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color'], io.stdout), spinner: false });
  io.stdout.write(renderInspection(inspection, file, renderer, columnsOf(io, io.stdout)));
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
    writeNotice(io, `${error.message}; inspecting without a model (cl100k_base estimates)`);
    return resolveSettings({ flags, env: io.env, cwd: io.cwd, offline: true });
  }
}

function n(value: number): string {
  return value.toLocaleString('en-US');
}

const LABEL = 9;
const pad = ' '.repeat(LABEL);

/** `label` in bold, padded to the label column, then `text` wrapped beside it. */
function field(r: TerminalRenderer, label: string, text: string, width: number): string {
  return `${r.paint('bold', label.padEnd(LABEL - 1))} ${wrapWidth(text, width, pad)}`;
}

/** The budget in plain words: where the input budget comes from, and what calibration changes. */
function budgetLines(b: SessionInspection['budget']): string[] {
  if (b.windowTooSmall) {
    return [`none: the ${n(b.contextWindowTokens)}-token window is not larger than the ${n(b.maxOutputTokens)} tokens kept for the reply${reserveWhy(b)} plus the 1,024-token safety margin; raise --context-window or lower maxTokens`];
  }
  if (b.budget === 0) return ['no limit (no context window set), so nothing is cut'];
  const billed = b.inputBudget ?? b.budget;
  const lines = [`${n(billed)} tokens for the request: the ${n(b.contextWindowTokens)}-token window less ${n(b.maxOutputTokens)} for the reply${reserveWhy(b)} and a 1,024-token safety margin`];
  if (b.inputBudget !== undefined && b.inputBudget !== b.budget) {
    const ratio = b.budget > 0 ? b.inputBudget / b.budget : 1;
    lines.push(`the provider has billed about ${ratio.toFixed(2)} tokens for each token we count, so that is ${n(b.budget)} of ours`);
  }
  return lines;
}

/** Where the reply reserve came from, in words ('' when the caller set it: the number says it all). */
function reserveWhy(b: SessionInspection['budget']): string {
  switch (b.replyReserveSource) {
    case 'model':
      return " (the model's reply size)";
    case 'window':
      return ' (an eighth of the window: no maxTokens set)';
    case 'reference-default':
      return ' (the default)';
    default:
      return '';
  }
}

/** The request against the budget in plain words. */
function requestLine(b: SessionInspection['budget'], governed: boolean): string {
  const billed = b.tokensCalibrated !== undefined && b.tokensCalibrated !== b.tokensAfter ? `, about ${n(b.tokensCalibrated)} billed` : '';
  const share = b.budget > 0 ? ` — ${Math.round((b.tokensAfter / b.budget) * 100)}% of the budget` : '';
  const before = governed && b.tokensBefore !== b.tokensAfter ? ` (${n(b.tokensBefore)} as stored)` : '';
  return `${n(b.tokensAfter)} tokens${billed}${before}${share}`;
}

/** One timeline row (and its reasons below it), fitted to `width` columns. */
function timelineRow(e: SessionInspection['timeline'][number], r: TerminalRenderer, width: number): string[] {
  const pos = e.index !== null ? `#${String(e.index).padStart(3)}` : e.sent ? '   +' : '   -';
  const who = fitWidth(`${e.role}${e.name ? ` ${e.role === 'assistant' ? '→ ' : ''}${e.name}` : ''}`, Math.min(24, Math.max(10, width - 40)));
  const tok = `${e.originalTokens !== undefined ? `${n(e.originalTokens)}→${n(e.tokens)}` : n(e.tokens)} tok`;
  const marks = e.marks.filter((m) => m !== 'in-flight' || e.sent);
  const marksText = marks.map((m) => m.toUpperCase()).join(' ');
  const head = `${pos} ${e.sent ? ' ' : '✗'} ${who.padEnd(Math.min(24, Math.max(10, width - 40)))} ${tok.padStart(11)}`;
  const out: string[] = [];
  const painted = marks.map((m) => r.paint(MARK_STYLE[m], m.toUpperCase())).join(' ');
  const withMarks = marksText ? `${head}  ${marksText}` : head;
  let line: string;
  if (displayWidth(withMarks) <= width) {
    const room = width - displayWidth(withMarks) - 4;
    const preview = e.preview && room >= 8 ? `  ${r.paint('dim', `"${fitWidth(e.preview, room)}"`)}` : '';
    line = `${head}${marksText ? `  ${painted}` : ''}${preview}`;
    out.push(line);
  } else {
    out.push(head);
    out.push(`${pad}${painted}`);
  }
  e.details.forEach((detail, i) => {
    if (e.marks[i] === 'in-flight') return;
    out.push(`${' '.repeat(6)}${r.paint('dim', `↳ ${wrapWidth(detail, width, ' '.repeat(8))}`)}`);
  });
  return out;
}

/**
 * The inspection as text for a terminal `width` columns wide (80 when piped): no line is longer,
 * long values wrap beside their label, previews are cut to fit.
 */
export function renderInspection(x: SessionInspection, file: string, r: TerminalRenderer, width = 80): string {
  const out: string[] = [];
  const b = x.budget;
  const governed = x.steps.length > 0;
  out.push(field(r, 'session', x.session.key, width));
  out.push(field(r, 'file', file, width));
  const replayed = x.session.replayedMessages === x.session.storedMessages ? 'all replayed' : `${n(x.session.replayedMessages)} replayed`;
  out.push(
    field(r, 'stored', `${plural(x.session.storedMessages, 'message')}, ${replayed}` + (x.session.consolidatedMessages > 0 ? `; ${n(x.session.consolidatedMessages)} consolidated into memory (not replayed)` : ''), width),
  );
  out.push(field(r, 'model', `${b.model ?? 'none (offline)'}; tokens counted with ${b.tokenizer}`, width));
  budgetLines(b).forEach((line, i) => out.push(i === 0 ? field(r, 'budget', line, width) : `${pad}${wrapWidth(line, width, pad)}`));
  const verdict = b.windowTooSmall ? r.paint('red', 'NO BUDGET') : b.fits ? r.paint('green', 'fits') : r.paint('red', 'OVER BUDGET');
  out.push(field(r, 'request', `${requestLine(b, governed)}: ${verdict}`, width));
  if (x.toolsWarning) out.push(field(r, 'tools', r.paint('yellow', x.toolsWarning), width));
  out.push('');
  out.push(r.paint('bold', wrapWidth(`System prompt: ${plural(x.systemPrompt.sections.length, 'section')}, ${n(x.systemPrompt.tokens)} tokens; tools: ${x.tools.count} definitions, ${n(x.tools.tokens)} tokens`, width, '  ')));
  const nameWidth = Math.min(16, Math.max(...x.systemPrompt.sections.map((s) => s.name.length), 4));
  for (const s of x.systemPrompt.sections) {
    const head = `  ${fitWidth(s.name, nameWidth).padEnd(nameWidth)} ${n(s.tokens).padStart(6)} tok`;
    const room = width - displayWidth(head) - 2;
    out.push(`${head}${room >= 8 ? `  ${r.paint('dim', fitWidth(s.preview, room))}` : ''}`);
  }
  out.push('');
  const inFlight = x.timeline.some((e) => e.marks.includes('in-flight'));
  const legend = `Timeline: #n is the position in the request, + a message the governor added, - one stored but not sent (✗)${
    inFlight ? '; IN-FLIGHT: part of the unfinished latest turn, compacted first when over budget' : ''
  }`;
  out.push(r.paint('bold', wrapWidth(legend, width, '  ')));
  for (const e of x.timeline) out.push(...timelineRow(e, r, width));
  out.push('');
  const counts = Object.entries(x.counts)
    .filter(([mark]) => mark !== 'in-flight')
    .map(([mark, count]) => `${count} ${mark.replace(/-/g, ' ')}`);
  out.push(field(r, 'summary', counts.length > 0 ? counts.join(', ') : 'nothing to change: the history is sent as stored', width));
  return `${out.join('\n')}\n`;
}
