import type { Message, TokenCounter, ToolDefinition } from '@nanobot/schema';
import { promptTokens } from './internal/estimate.js';
import { isValidToolCall } from './internal/tool-calls.js';

/** A rule a model request breaks. */
export type LegalityRule =
  | 'invalid-message'
  | 'tool-calls-not-list'
  | 'invalid-tool-call'
  | 'tool-call-id-missing'
  | 'duplicate-tool-call-id'
  | 'tool-calls-on-non-assistant'
  | 'unanswered-tool-call'
  | 'orphan-tool-result'
  | 'duplicate-tool-result'
  | 'over-budget'
  | 'first-not-user'
  | 'consecutive-same-role'
  | 'ends-with-assistant';

/** One broken rule, at a message index. */
export interface LegalityViolation {
  rule: LegalityRule;
  index: number;
  message: string;
}

/** Options of {@link checkLegality}. */
export interface CheckLegalityOptions {
  /** Input budget in tokens; when > 0 the prompt estimate must not exceed it. */
  budget?: number;
  /** Tool definitions sent with the request (counted with the budget). */
  tools?: readonly ToolDefinition[] | null;
  /** Exact provider counter for the budget check (sync; may throw: the estimate is used). */
  tokenCounter?: TokenCounter | null;
  /**
   * Also check the role rules strict providers apply to a final request (after
   * {@link enforceRoleAlternation}): a user turn first after the system prompt, no two adjacent
   * user or assistant turns, no trailing assistant turn.
   */
  request?: boolean;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Lists every way `messages` would be rejected by OpenAI or Anthropic (empty list: legal):
 * every tool call has a unique non-empty id and a valid name and is answered exactly once by
 * the tool messages right after its assistant turn, every tool message answers a call of the
 * assistant turn right before its group, and (with `budget`) the prompt fits. Pure; the
 * runner, session and transcript suites reuse it.
 */
export function checkLegality(messages: readonly Message[], options: CheckLegalityOptions = {}): LegalityViolation[] {
  const out: LegalityViolation[] = [];
  const add = (rule: LegalityRule, index: number, message: string) => out.push({ rule, index, message });
  const declared = new Set<string>();
  let open: Set<string> | null = null; // calls of the current assistant turn not yet answered
  let openAt = -1;
  let answered: Set<string> | null = null;

  const closeGroup = () => {
    if (open !== null) for (const id of open) add('unanswered-tool-call', openAt, `tool call ${id} has no result right after its assistant turn`);
    open = null;
    answered = null;
  };

  messages.forEach((msg, i) => {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      closeGroup();
      add('invalid-message', i, 'a message must be an object');
      return;
    }
    const calls = (msg as { tool_calls?: unknown }).tool_calls;
    const hasCalls = calls !== undefined && calls !== null && !(Array.isArray(calls) && calls.length === 0);
    if (msg.role === 'tool') {
      const id = (msg as { tool_call_id?: unknown }).tool_call_id;
      if (!isString(id)) add('orphan-tool-result', i, 'tool message without a string tool_call_id');
      else if (answered?.has(id)) add('duplicate-tool-result', i, `second result for tool call ${id}`);
      else if (open === null || !open.has(id)) add('orphan-tool-result', i, `tool result ${id} does not answer the assistant turn right before it`);
      else {
        open.delete(id);
        answered!.add(id);
      }
      if (hasCalls) add('tool-calls-on-non-assistant', i, 'a tool message carries tool_calls');
      return;
    }
    closeGroup();
    if (!hasCalls) return;
    if (msg.role !== 'assistant') {
      add('tool-calls-on-non-assistant', i, `a ${String(msg.role)} message carries tool_calls`);
      return;
    }
    if (!Array.isArray(calls)) {
      add('tool-calls-not-list', i, 'tool_calls is not a list');
      return;
    }
    open = new Set();
    answered = new Set();
    openAt = i;
    for (const call of calls) {
      if (!isValidToolCall(call)) add('invalid-tool-call', i, 'a tool call without a usable name');
      const id = (call as { id?: unknown } | null)?.id;
      if (!isString(id)) {
        add('tool-call-id-missing', i, 'a tool call without a string id');
        continue;
      }
      if (declared.has(id)) add('duplicate-tool-call-id', i, `tool call id ${id} is used twice in the request`);
      declared.add(id);
      open.add(id);
    }
  });
  closeGroup();

  if (options.request) {
    const first = messages.findIndex((m) => m?.role !== 'system');
    if (first >= 0 && messages[first].role !== 'user') add('first-not-user', first, 'the first message after the system prompt is not a user message');
    for (let i = 1; i < messages.length; i++) {
      const r = messages[i].role;
      if ((r === 'user' || r === 'assistant') && messages[i - 1].role === r) add('consecutive-same-role', i, `two ${r} messages in a row`);
    }
    if (messages.length > 0 && messages[messages.length - 1].role === 'assistant') add('ends-with-assistant', messages.length - 1, 'the request ends with an assistant message');
  }
  if (options.budget !== undefined && options.budget > 0) {
    const tokens = promptTokens(messages, { tools: options.tools ?? null, tokenCounter: options.tokenCounter ?? null });
    if (tokens > options.budget) add('over-budget', -1, `prompt estimate ${tokens} exceeds the budget ${options.budget}`);
  }
  return out;
}
