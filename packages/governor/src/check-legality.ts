import type { Message, TokenCounter } from '@nanobot/schema';
import { promptTokens } from './sizing/estimate.js';
import { isValidToolCall } from './internal/tool-calls.js';
import { isBlankContent, isBlankText, isBlankTextPart } from './internal/content.js';
import { isInstructionRole, type GovernTarget } from './steps/target/govern-target.js';
import type { MessageLike } from './message-like.js';
import { isUnsignedReasoningOnly } from './steps/target/legalize-for-target.js';
import { TARGET_PROFILES } from './steps/target/profiles/index.js';
import { thoughtSignatureOf } from './steps/target/placeholder-thought-signatures.js';
import type { TargetProfile } from './steps/target/target-profile.js';
import { foreignArtifactsIn } from './steps/target/foreign-artifacts.js';
import { carriesOwnReasoning, currentTurnRuleFor, removesEarlierReasoning } from './steps/target/current-turn-reasoning.js';
import { estimatorFor, withModelDefaults, type ModelOptions } from './sizing/model-defaults.js';

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
  | 'ends-with-assistant'
  | 'unknown-role'
  | 'empty-content'
  | 'blank-text'
  | 'instruction-after-start'
  | 'developer-role'
  | 'invalid-tool-call-id'
  | 'user-after-tool'
  | 'unsigned-reasoning-turn'
  | 'missing-reasoning-content'
  | 'current-turn-signature'
  | 'foreign-artifact'
  | 'reasoning-summary-missing'
  | 'current-turn-reasoning'
  | 'earlier-reasoning';

/** One broken rule, at a message index. */
export interface LegalityViolation {
  rule: LegalityRule;
  index: number;
  message: string;
}

/**
 * Options of {@link checkLegality}. `compat`, `model`, `models`, `tokenizer` and `estimator` choose the count
 * the budget is checked with, as in `govern` (default: the provider-view count, cl100k).
 */
export interface CheckLegalityOptions extends Pick<ModelOptions, 'model' | 'models' | 'tokenizer' | 'compat' | 'estimator'> {
  /** Input budget in tokens; when > 0 the prompt estimate must not exceed it. */
  budget?: number;
  /** Tool definitions sent with the request (counted with the budget). */
  tools?: readonly object[] | null;
  /** Exact provider counter for the budget check (sync; may throw: the estimate is used). */
  tokenCounter?: TokenCounter | null;
  /**
   * Also check the role rules strict providers apply to a final request (after
   * {@link enforceRoleAlternation}): a user turn first after the system prompt, no two adjacent
   * user or assistant turns, no trailing assistant turn.
   */
  request?: boolean;
  /**
   * Also check every rule the named API states for a request, as its declared profile lists
   * them (see {@link GovernTarget} and `TARGET_PROFILES`): a known role and a user message
   * first after the instructions (all); content present (`null` only on an assistant turn with
   * tool calls, no empty content list: the OpenAI-shaped APIs); no blank content or text part,
   * no `developer` message, instructions only before the conversation, strict user/assistant
   * alternation (tool results count as the user turn they become) and no trailing assistant
   * turn (Anthropic, Bedrock, Gemini, Mistral, `'any'`); tool-call ids of the target's form
   * (`^[a-zA-Z0-9_-]+$`; Mistral exactly 9 alphanumerics); no user message right after a tool
   * message (Mistral, Gemini); no assistant turn of unsigned reasoning only (Anthropic, Bedrock).
   * `'openai'` alone allows same-role turns in a row and an assistant turn last.
   */
  target?: GovernTarget;
  /**
   * Check `messages` as a stored history that the next request continues: every rule is applied
   * to the history followed by one more user message, so a trailing answer is legal, while a call
   * left unanswered, or (for Anthropic) a history that already ends on a user turn, is not. A rule
   * only the appended message breaks is reported at the history's last index. What an operator
   * or a test asserts about storage: "legal to continue".
   */
  continuation?: boolean;
}

/** What {@link checkLegality} appends to a history checked with `continuation`. */
const NEXT_USER_MESSAGE: Message = Object.freeze({ role: 'user', content: 'next' }) as Message;


const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Lists every way `messages` would be rejected by OpenAI or Anthropic (empty list: legal):
 * every tool call has a unique non-empty id and a valid name and is answered exactly once by
 * the tool messages right after its assistant turn, every tool message answers a call of the
 * assistant turn right before its group, and (with `budget`) the prompt fits; with `target`,
 * also every content and role rule that API states (see {@link CheckLegalityOptions.target}).
 * The rules are written from the providers' documented errors, not from what the governor
 * emits. Pure; the runner, session and transcript suites reuse it.
 */
export function checkLegality(input: readonly MessageLike[], options: CheckLegalityOptions = {}): LegalityViolation[] {
  if (options.continuation) return checkContinuation(input, options);
  const messages = input as readonly Message[];
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

  const target = options.target;
  const profile = target === undefined ? undefined : TARGET_PROFILES[target];
  const strictOrder = profile?.roleOrder === 'strict';
  const objects = messages.every((m) => m !== null && typeof m === 'object');
  if (profile !== undefined && objects) checkTarget(messages, profile, add, options.model ?? undefined);
  if ((options.request || target !== undefined) && objects) {
    const first = messages.findIndex((m) => !isInstructionRole(m.role));
    if (first >= 0 && messages[first].role !== 'user') add('first-not-user', first, 'the first message after the instructions is not a user message');
  }
  if ((options.request || strictOrder) && objects) {
    for (let i = 1; i < messages.length; i++) {
      const r = messages[i].role;
      if ((r === 'user' || r === 'assistant') && messages[i - 1].role === r) add('consecutive-same-role', i, `two ${r} messages in a row`);
    }
    if (messages.length > 0 && messages[messages.length - 1].role === 'assistant') add('ends-with-assistant', messages.length - 1, 'the request ends with an assistant message');
  }
  if (options.budget !== undefined && options.budget > 0) {
    const estimator = estimatorFor(withModelDefaults(options));
    const tokens = promptTokens(messages, { tools: options.tools ?? null, tokenCounter: options.tokenCounter ?? null, estimator });
    if (tokens > options.budget) add('over-budget', -1, `prompt estimate ${tokens} exceeds the budget ${options.budget}`);
  }
  return out;
}

/** `continuation: true`: the history as the prefix of the next request (the budget on the history alone). */
function checkContinuation(input: readonly MessageLike[], options: CheckLegalityOptions): LegalityViolation[] {
  const { continuation: _continuation, budget, ...rules } = options;
  const last = input.length - 1;
  const out = checkLegality([...input, NEXT_USER_MESSAGE], rules).map((v) =>
    v.index > last ? { ...v, index: last, message: `${v.message} (once the next user message follows the stored history)` } : v,
  );
  if (budget !== undefined && budget > 0) out.push(...checkLegality(input, { ...rules, budget }).filter((v) => v.rule === 'over-budget'));
  return out;
}

type Add = (rule: LegalityRule, index: number, message: string) => void;

function hasCalls(msg: Message): boolean {
  const calls = (msg as { tool_calls?: unknown }).tool_calls;
  return Array.isArray(calls) ? calls.length > 0 : calls !== undefined && calls !== null;
}

/** The per-message content and role rules of a target's profile. */
function checkTarget(messages: readonly Message[], profile: TargetProfile, report: Add, model: string | undefined): void {
  const openai = profile.contentRequired;
  const anthropic = profile.strictContent;
  const pattern = profile.toolCallIdPattern;
  // A rule two of the profile's sources share is listed once per message.
  const seen = new Set<string>();
  const add: Add = (rule, index, message) => {
    const key = `${rule}:${index}`;
    if (seen.has(key)) return;
    seen.add(key);
    report(rule, index, message);
  };
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (profile.currentTurnSignaturePlaceholder !== undefined) {
    for (let i = lastUser + 1; i < messages.length; i++) {
      const calls = messages[i].role === 'assistant' ? messages[i].tool_calls : undefined;
      if (Array.isArray(calls) && calls.length > 0 && thoughtSignatureOf(calls[0]) === undefined) add('current-turn-signature', i, 'a current-turn function call without a thought signature (Gemini 3 rejects it)');
    }
  }
  const turnRule = currentTurnRuleFor(profile, model);
  if (turnRule !== undefined) {
    for (let i = lastUser + 1; i < messages.length; i++) {
      if (messages[i].role === 'assistant' && hasCalls(messages[i]) && !carriesOwnReasoning(messages[i], turnRule)) add('current-turn-reasoning', i, `a current-turn step without the reasoning ${String(model)} requires back (made by another model)`);
    }
  }
  const earlierRemoved = removesEarlierReasoning(profile, model);
  if (earlierRemoved) {
    for (let i = 0; i < lastUser; i++) {
      const m = messages[i];
      if (m.role === 'assistant' && (typeof m.reasoning_content === 'string' || (Array.isArray(m.content) && m.content.some((p) => (p as { type?: unknown } | null)?.type === 'reasoning') && (hasCalls(m) || m.content.some((p) => (p as { type?: unknown } | null)?.type !== 'reasoning'))))) {
        add('earlier-reasoning', i, `reasoning of an earlier turn sent to ${String(model)} (it takes none)`);
      }
    }
  }
  if (profile.assistantBetweenToolAndUser) {
    for (let i = 1; i < messages.length; i++) {
      if (messages[i].role === 'user' && messages[i - 1].role === 'tool') add('user-after-tool', i, `a user message right after a tool message (${profile.target} refuses it)`);
    }
  }
  let started = false;
  messages.forEach((msg, i) => {
    const role = String(msg.role);
    const content = msg.content;
    const calls = msg.role === 'assistant' && hasCalls(msg);
    if (!profile.roles.includes(role)) {
      add('unknown-role', i, `role ${role} is not accepted`);
    }
    if (isInstructionRole(role)) {
      if (anthropic && role === 'developer') add('developer-role', i, `${profile.target} has no developer role (it belongs in the system prompt)`);
      if (anthropic && started) add('instruction-after-start', i, `a ${role} message after the conversation started (${profile.target} takes instructions only as the system prompt)`);
    } else {
      started = true;
    }
    if (openai) {
      if ((content === null || content === undefined) && !calls) add('empty-content', i, `a ${role} message without content${msg.role === 'assistant' ? ' and without tool calls' : ''}`);
      else if (Array.isArray(content) && content.length === 0) add('empty-content', i, `a ${role} message with an empty content list`);
    }
    if (pattern !== null) {
      for (const call of calls && Array.isArray(msg.tool_calls) ? msg.tool_calls : []) {
        const id = (call as { id?: unknown } | null)?.id;
        if (typeof id === 'string' && id.length > 0 && !pattern.test(id)) add('invalid-tool-call-id', i, `tool call id ${id} does not match ${pattern.source}`);
      }
    }
    for (const what of foreignArtifactsIn(msg, profile)) {
      add(what === 'a reasoning item without summary' ? 'reasoning-summary-missing' : 'foreign-artifact', i, `${what} sent to ${profile.target}`);
    }
    if (profile.reasoningContentOnToolCalls && calls && typeof msg.reasoning_content !== 'string' && !(earlierRemoved && i < lastUser)) {
      add('missing-reasoning-content', i, 'a tool-calling assistant turn without reasoning_content (DeepSeek thinking mode requires it back)');
    }
    if (profile.dropUnsignedReasoningTurns && msg.role === 'assistant' && !calls && isUnsignedReasoningOnly(content)) {
      add('unsigned-reasoning-turn', i, 'an assistant turn holding only unsigned reasoning (sent as an empty turn)');
    }
    if (!anthropic) return;
    if (calls) {
      // The text next to tool calls is optional (null, "" or no text part), but text that is
      // sent must not be blank.
      if (typeof content === 'string' && content.length > 0 && isBlankText(content)) add('blank-text', i, 'whitespace-only text next to tool calls');
      else if (Array.isArray(content) && content.some(isBlankTextPart)) add('blank-text', i, 'a blank text part next to tool calls');
      return;
    }
    if (isBlankContent(content)) {
      add('empty-content', i, `a ${role} message with no non-whitespace content`);
    } else if (Array.isArray(content) && content.some(isBlankTextPart)) {
      add('blank-text', i, `a blank text part in a ${role} message`);
    }
  });
}
