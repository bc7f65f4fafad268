// Prints what govern() did to one stored history at one budget: per step, the messages and
// token estimates before and after, and what changed (messages dropped or added, results
// renamed, moved, offloaded, truncated, compacted), then whether the request is legal.
//
//   node --conditions=source --import tsx packages/governor/scripts/govern-report.ts <file> [--budget 32000]
//
// <file>: a JSON array of OpenAI-style messages, or JSONL with one message per line (lines
// without a `role`, such as session metadata records, are skipped). A bare name is also looked
// up in $NANOBOT_FIXTURES_DIR/transcripts. Options: --budget N (input budget in tokens),
// --window N (context window; budget = window − reply reservation − 1024), --max-output N
// (reply reservation, default 4096), --max-result-chars N (default 16000), --json (the raw
// GovernReport). Exit code 0 when the governed request is legal, 1 when not, 2 on bad input.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Message } from '@nanobot/schema';
import { checkLegality, enforceRoleAlternation, govern, type GovernOptions, type GovernReport, type GovernStepReport } from '../src/index.js';

/** Parsed command line. */
export interface ReportArgs {
  file: string;
  budget: number | null;
  window: number | null;
  maxOutput: number;
  maxResultChars: number | undefined;
  json: boolean;
}

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const USAGE = 'usage: govern-report <file.json|file.jsonl|transcript name> [--budget N | --window N] [--max-output N] [--max-result-chars N] [--json]';

function positiveInt(flag: string, value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value.replace(/_/g, '')) || Number(value.replace(/_/g, '')) <= 0) {
    throw new UsageError(`${flag} needs a positive whole number of tokens, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
  }
  return Number(value.replace(/_/g, ''));
}

/** Parses `argv` (without node and the script path). Throws {@link UsageError}. */
export function parseArgs(argv: readonly string[]): ReportArgs {
  const out: ReportArgs = { file: '', budget: null, window: null, maxOutput: 4096, maxResultChars: undefined, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--budget') out.budget = positiveInt(flag, value());
    else if (flag === '--window') out.window = positiveInt(flag, value());
    else if (flag === '--max-output') out.maxOutput = positiveInt(flag, value());
    else if (flag === '--max-result-chars') out.maxResultChars = positiveInt(flag, value());
    else if (flag === '--json') out.json = true;
    else if (flag === '--help' || flag === '-h') throw new UsageError('');
    else if (flag.startsWith('-')) throw new UsageError(`unknown option ${flag}`);
    else if (out.file) throw new UsageError(`one file at a time (got ${out.file} and ${a})`);
    else out.file = a;
  }
  if (!out.file) throw new UsageError('no file given');
  if (out.budget !== null && out.window !== null) throw new UsageError('give --budget or --window, not both');
  return out;
}

/** Finds the file: as given, else by name in the shared transcripts folder. */
export function resolveHistoryFile(file: string): string {
  if (existsSync(file)) return resolve(file);
  const shared = process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures');
  for (const name of [file, `${file}.json`]) {
    const candidate = join(shared, 'transcripts', basename(name));
    if (existsSync(candidate)) return candidate;
  }
  throw new UsageError(`no such file: ${file}`);
}

/** Reads a JSON array or JSONL history; throws {@link UsageError} naming the bad line. */
export function readHistory(path: string): Message[] {
  const text = readFileSync(path, 'utf8');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${path}: not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new UsageError(`${path}: expected a JSON array of messages`);
    parsed.forEach((m, i) => {
      if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof (m as { role?: unknown }).role !== 'string') {
        throw new UsageError(`${path}: element ${i} is not a message (an object with a string role)`);
      }
    });
    return parsed as Message[];
  }
  const out: Message[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${path}:${i + 1}: not a JSON line (neither a JSON array file nor JSONL)`);
    }
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { role?: unknown }).role === 'string') out.push(value as Message);
  });
  if (out.length === 0) throw new UsageError(`${path}: no messages found`);
  return out;
}

const n = (v: number | undefined): string => (v === undefined ? '–' : v.toLocaleString('en-US'));

function describeStep(step: GovernStepReport): string[] {
  const lines: string[] = [];
  const byRole = (list: GovernStepReport['removed']) => {
    const counts = new Map<string, number>();
    for (const m of list) counts.set(m.role, (counts.get(m.role) ?? 0) + 1);
    return [...counts].map(([role, c]) => `${c} ${role}`).join(', ');
  };
  // A message rewritten in place shows up as removed and added at the same index: say "rewrote".
  const addedAt = new Map(step.added.map((m) => [`${m.index}:${m.role}`, m]));
  const rewritten = step.removed.filter((m) => addedAt.has(`${m.index}:${m.role}`));
  const rewrittenKeys = new Set(rewritten.map((m) => `${m.index}:${m.role}`));
  const removed = step.removed.filter((m) => !rewrittenKeys.has(`${m.index}:${m.role}`));
  const added = step.added.filter((m) => !rewrittenKeys.has(`${m.index}:${m.role}`));
  if (rewritten.length > 0) lines.push(`rewrote ${rewritten.length} (${byRole(rewritten)})`);
  if (removed.length > 0) {
    const first = removed[0];
    const last = removed[removed.length - 1];
    lines.push(`dropped ${removed.length} (${byRole(removed)}), ${removed.length === 1 ? `message #${first.index}` : `messages #${first.index}..#${last.index}`}`);
  }
  if (added.length > 0) lines.push(`added ${added.length} (${byRole(added)})${added.length <= 3 ? `: ${added.map((m) => `#${m.index} ${m.role}${m.toolCallId ? ` ${m.toolCallId}` : ''}`).join(', ')}` : ''}`);
  const actions = new Map<string, GovernStepReport['toolResults']>();
  for (const r of step.toolResults) actions.set(r.action, [...(actions.get(r.action) ?? []), r]);
  for (const [action, list] of actions) {
    const sample = list.slice(0, 3).map((r) => {
      if (action === 'renamed') return `${r.from} → ${r.toolCallId}`;
      const size = r.originalChars !== undefined ? ` ${n(r.originalChars)} chars` : '';
      return `${r.name} ${r.toolCallId}${size}${r.location ? ` → ${r.location}` : ''}${r.error ? ` (${r.error})` : ''}`;
    });
    lines.push(`${action} ${list.length} result${list.length === 1 ? '' : 's'}: ${sample.join('; ')}${list.length > 3 ? '; …' : ''}`);
  }
  const reasons = new Map<string, number>();
  for (const m of [...step.removed, ...step.added]) if (m.reason !== undefined) reasons.set(m.reason, (reasons.get(m.reason) ?? 0) + 1);
  if (reasons.size > 0) lines.push(`why: ${[...reasons].map(([r, c]) => `${r} ×${c}`).join(', ')}`);
  for (const m of step.added) if (m.location !== undefined) lines.push(`saved message #${m.index} (${n(m.originalChars)} chars) → ${m.location}`);
  for (const note of step.notes ?? []) lines.push(`note: ${note}`);
  return lines;
}

/** The human-readable report: one block per step, then the legality verdict. */
export function formatReport(title: string, report: GovernReport, violations: readonly { rule: string; index: number; message: string }[]): string {
  const out: string[] = [];
  out.push(`${title}`);
  out.push(`budget: ${report.budget > 0 ? `${n(report.budget)} tokens` : 'none (repairs only)'}`);
  out.push(`messages ${n(report.messagesBefore)} → ${n(report.messagesAfter)}, tokens ${n(report.tokensBefore)} → ${n(report.tokensAfter)}`);
  if (report.target !== null) out.push(`target: ${report.target}`);
  if (report.fits !== undefined) out.push(`fits: ${report.fits ? 'yes' : `no — ${report.overflow?.message ?? 'over budget'}`}`);
  out.push('');
  const width = Math.max(...report.steps.map((s) => s.step.length)) + 4;
  out.push(`${'step'.padEnd(width)}${'messages'.padStart(16)}${'tokens'.padStart(26)}`);
  for (const step of report.steps) {
    const name = `${step.step}${step.pass > 1 ? ` #${step.pass}` : ''}`;
    const msgs = `${n(step.messagesBefore)} → ${n(step.messagesAfter)}`;
    const toks = step.tokensBefore === undefined ? '–' : `${n(step.tokensBefore)} → ${n(step.tokensAfter)}`;
    out.push(`${name.padEnd(width)}${msgs.padStart(16)}${toks.padStart(26)}${step.changed ? '' : '   (unchanged)'}`);
    for (const line of describeStep(step)) out.push(`    ${line}`);
  }
  out.push('');
  if (violations.length === 0) out.push('request (after enforceRoleAlternation): legal');
  else {
    out.push(`request (after enforceRoleAlternation): ${violations.length} problem(s)`);
    for (const v of violations.slice(0, 20)) out.push(`    ${v.rule} at #${v.index}: ${v.message}`);
  }
  return out.join('\n');
}

/** Runs the command; returns the text to print and the exit code (never exits itself). */
export function runGovernReport(argv: readonly string[]): { code: number; stdout: string; stderr: string } {
  let args: ReportArgs;
  let messages: Message[];
  let path: string;
  try {
    args = parseArgs(argv);
    path = resolveHistoryFile(args.file);
    messages = readHistory(path);
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: '', stderr: error.message ? `${error.message}\n${USAGE}\n` : `${USAGE}\n` };
    throw error;
  }
  const options: GovernOptions = { estimateTokens: true, maxOutputTokens: args.maxOutput };
  if (args.budget !== null) Object.assign(options, { contextWindowTokens: args.budget, contextBlockLimit: args.budget });
  if (args.window !== null) options.contextWindowTokens = args.window;
  if (args.maxResultChars !== undefined) options.maxToolResultChars = args.maxResultChars;
  const { messages: governed, report } = govern(messages, options);
  const request = enforceRoleAlternation(governed);
  const violations = checkLegality(request, { request: true, budget: report.budget, ...(report.target !== null ? { target: report.target } : {}) });
  if (args.json) return { code: violations.length ? 1 : 0, stdout: `${JSON.stringify({ report, violations }, null, 2)}\n`, stderr: '' };
  return { code: violations.length ? 1 : 0, stdout: `${formatReport(basename(path), report, violations)}\n`, stderr: '' };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { code, stdout, stderr } = runGovernReport(process.argv.slice(2));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}
