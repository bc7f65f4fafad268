import { estimateMessageTokens, failureReplayRow, isFailureNote, PYTHON_WHITESPACE_CLASS, pythonStr, pythonStrip, pythonTruthy, type Message } from '@nanobot/schema';
import { findLegalMessageStart } from '@nanobot/governor';
import { detachRuntimeContext, type RuntimeContextMarker } from '@nanobot/context-builder';
import { contentWithMediaBreadcrumbs } from './media-breadcrumbs.js';
import { recentMessageStartIndex } from './recent-message-start-index.js';

/** Messages always replayed after consolidation, however far the pointer has advanced. */
export const MIN_COMPACTED_REPLAY_MESSAGES = 8;
const MAX_CLI_APP_LINES = 8;
const REPLAYED_KEYS = ['tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'thinking_blocks'] as const;

/** Options of {@link getHistory}; zero means "no limit". */
export interface GetHistoryOptions {
  /** Keep at most this many raw messages (before projection). */
  maxMessages?: number;
  /** Keep the newest projected rows whose estimated tokens fit (the newest row always stays). */
  maxTokens?: number;
  /** When the message window holds no user message, extend it back to the user turn that began it. */
  extendToUser?: boolean;
  /** Keep persisted runtime-context suffixes (default true: the model sees what it saw then). */
  includeRuntimeContext?: boolean;
}

// The reference's regexes, in Python's semantics: `\s` covers Python's whitespace, and
// `str.splitlines()` splits on exactly these separators.
const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const MESSAGE_TIME_PREFIX = /^\[Message Time: [^\]]+\]\n?/;
const LOCAL_IMAGE_BREADCRUMB = new RegExp(`^\\[image: (?:/|~)[^\\]]+\\]${PYTHON_WHITESPACE_CLASS}*$`);
const TOOL_ECHO = new RegExp(`^${PYTHON_WHITESPACE_CLASS}*(?:generate_image|message)\\([^)]*\\)${PYTHON_WHITESPACE_CLASS}*$`);

/** Python's `str.splitlines()`: a trailing separator does not start another line. */
function pySplitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(PY_LINE_BREAK);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function sanitizeAssistantText(text: string): string {
  const lines = pySplitLines(text.replace(MESSAGE_TIME_PREFIX, ''));
  return pythonStrip(lines.filter((line) => !LOCAL_IMAGE_BREADCRUMB.test(line) && !TOOL_ECHO.test(line)).join('\n'));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function cliAppLines(apps: unknown[]): string[] {
  const lines: string[] = [];
  for (const app of apps.slice(0, MAX_CLI_APP_LINES)) {
    if (!isRecord(app)) continue;
    // `str(item.get("name") or "").strip().lower()`: `or` is Python truthiness.
    const name = pythonStrip(pythonStr(pythonTruthy(app.name) ? app.name : '')).toLowerCase();
    if (!name) continue;
    const entry = pythonStrip(pythonStr(pythonTruthy(app.entry_point) ? app.entry_point : 'unknown')) || 'unknown';
    lines.push(`[CLI App Attachment: @${name}; tool=run_cli_app; entry_point=${entry}; skill=skills/cli-app-${name}/SKILL.md]`);
  }
  return lines;
}

const present = (message: Message, key: string): boolean => message[key] !== undefined;

/** One stored message as the model sees it on replay, or null when it is not replayed. */
function projectMessage(message: Message, includeRuntimeContext: boolean): Message | null {
  if (message._command) return null;
  // A stored failure (new `_failure` rows and the texts older versions stored as speech) replays
  // as its neutral note: a user-role note for a turn, a tool result for a call.
  const failure = failureReplayRow(message);
  if (failure !== null) return failure;
  const marker = message._runtime_context;
  const hasRuntimeContext = isRecord(marker);
  let content: Message['content'] = message.content === undefined ? '' : message.content;
  if (!includeRuntimeContext && hasRuntimeContext && marker.version === 1) {
    content = detachRuntimeContext(content, message._runtime_context as RuntimeContextMarker);
  }
  if (message.role === 'assistant' && typeof content === 'string') content = sanitizeAssistantText(content);
  if (message.role === 'user') {
    content = contentWithMediaBreadcrumbs({ role: 'user', content, media: message.media }) ?? content;
    const apps = message.cli_apps;
    if (includeRuntimeContext && !hasRuntimeContext && Array.isArray(apps) && apps.length > 0 && typeof content === 'string') {
      const lines = cliAppLines(apps);
      if (lines.length > 0) content = content ? `${content}\n${lines.join('\n')}` : lines.join('\n');
    }
  }
  if (message.role === 'assistant' && typeof content === 'string' && pythonStrip(content) === '') {
    if (!present(message, 'tool_calls') && !present(message, 'reasoning_content') && !present(message, 'thinking_blocks')) return null;
  }
  const row: Message = { role: message.role, content };
  // Copied whenever present, null included, as the reference does (`if key in message`).
  for (const key of REPLAYED_KEYS) {
    if (present(message, key)) (row as Record<string, unknown>)[key] = message[key];
  }
  return row;
}

interface RowEstimate {
  content: unknown;
  name: unknown;
  toolCallId: unknown;
  toolCalls: unknown;
  reasoning: unknown;
  tokens: number;
}
// Token estimates of projected rows, keyed by the stored message they came from and checked
// field by field (strings by value), so repeated replays of a long session do not re-encode rows
// whose projection differs from the stored message (breadcrumbs, trimmed assistant text).
const rowEstimates = new WeakMap<Message, RowEstimate>();

function rowTokens(source: Message, row: Message): number {
  if (row.content === source.content) return estimateMessageTokens(source);
  const hit = rowEstimates.get(source);
  if (
    hit &&
    hit.content === row.content &&
    hit.name === row.name &&
    hit.toolCallId === row.tool_call_id &&
    hit.toolCalls === row.tool_calls &&
    hit.reasoning === row.reasoning_content
  ) {
    return hit.tokens;
  }
  const tokens = estimateMessageTokens(row);
  rowEstimates.set(source, {
    content: row.content,
    name: row.name,
    toolCallId: row.tool_call_id,
    toolCalls: row.tool_calls,
    reasoning: row.reasoning_content,
    tokens,
  });
  return tokens;
}

// A failure note is not a user turn: a window never starts at one, so the model never reads
// "the turn above" with nothing above it.
function firstUserStart(messages: readonly Message[]): number {
  for (let i = 0; i < messages.length; i += 1) {
    if (messages[i].role === 'user' && !isFailureNote(messages[i])) return i > 0 && messages[i - 1]._channel_delivery ? i - 1 : i;
  }
  return -1;
}

function dropLeadingOrphans(messages: Message[]): Message[] {
  const start = findLegalMessageStart(messages);
  return start > 0 ? messages.slice(start) : messages;
}

/**
 * The session's replayable history, following the reference's rules: start at
 * `lastConsolidated` but always keep the last {@link MIN_COMPACTED_REPLAY_MESSAGES} raw messages
 * (aligned to the user turn that began them), begin at a user message, never begin with an orphan
 * tool result, drop command rows and blank assistant rows, add image breadcrumbs, and fit
 * `maxTokens` when given. A stored failure (an interrupted turn or call, a failed request, as
 * `_failure` rows or as the texts earlier versions stored) becomes its neutral note
 * (`failureReplayRow` from @nanobot/schema): no assistant text the model did not produce is ever
 * replayed. Returns fresh row objects; the session is not modified.
 */
export function getHistory(
  session: { readonly messages: readonly Message[]; readonly lastConsolidated: number },
  options: GetHistoryOptions = {},
): Message[] {
  const { maxMessages = 0, maxTokens = 0, extendToUser = false, includeRuntimeContext = true } = options;
  const messages = session.messages;
  const archived = session.lastConsolidated;
  let replayStart = archived;
  if (archived > 0) {
    replayStart = Math.min(archived, recentMessageStartIndex(messages, MIN_COMPACTED_REPLAY_MESSAGES, true));
  }
  let window = messages.slice(replayStart);
  if (maxMessages > 0) {
    const keepAll = replayStart < archived && messages.length - archived < maxMessages;
    if (!keepAll) window = window.slice(recentMessageStartIndex(window, maxMessages, extendToUser));
  }
  const userStart = firstUserStart(window);
  if (userStart > 0) window = window.slice(userStart);
  window = dropLeadingOrphans(window);

  const projected: Message[] = [];
  const sources: Message[] = [];
  for (const message of window) {
    const row = projectMessage(message, includeRuntimeContext);
    if (row) {
      projected.push(row);
      sources.push(message);
    }
  }
  if (maxTokens <= 0 || projected.length === 0) return projected;

  let used = 0;
  let cut = projected.length;
  for (let i = projected.length - 1; i >= 0; i -= 1) {
    const tokens = rowTokens(sources[i], projected[i]);
    if (i < projected.length - 1 && used + tokens > maxTokens) break;
    used += tokens;
    cut = i;
  }
  let tail = projected.slice(cut);
  const tailUser = firstUserStart(tail);
  if (tailUser >= 0) {
    tail = tail.slice(tailUser);
  } else {
    let lastUser = -1;
    for (let i = projected.length - 1; i >= 0; i -= 1) {
      if (projected[i].role === 'user' && !isFailureNote(projected[i])) {
        lastUser = i;
        break;
      }
    }
    if (lastUser >= 0) tail = projected.slice(lastUser);
  }
  return dropLeadingOrphans(tail);
}
