// The Anthropic Messages API's rules for a request body, with the wording its 400
// `invalid_request_error` carries. One place for what packages/governor (messages of a governed
// copy) and packages/providers (whole bodies with prompt caching) used to check apart: turn
// order and alternation, no empty content or whitespace-only text, every tool_use answered by
// tool_result blocks first in the next user turn, prompt-caching limits, and thinking blocks
// (signed, byte-exact, first in the tool loop's assistant turn when thinking is on).
import { verifyWireSignature, wireSignature } from '../core/signatures.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { blank, isRec, records } from '../core/wire-rule.js';

/** How a body is checked. */
export interface AnthropicCheckContext {
  /** Verify thinking signatures against the stand-in's scheme (default true; histories with made-up signatures turn it off). */
  verifySignatures: boolean;
  /** Require a user turn last whatever the model (default: only models without prefill). */
  strictLastTurn: boolean;
}

const MESSAGES_API = 'https://docs.claude.com/en/api/messages';
const CACHING = 'https://docs.claude.com/en/docs/build-with-claude/prompt-caching';
const THINKING = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks';
const TOOL_USE = 'https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks';
const COMPACTION = 'https://platform.claude.com/docs/en/build-with-claude/compaction-threshold';

/** The `encrypted_content` a local Anthropic server gives a compaction block whose summary is `content`. */
export const anthropicCompactionContent = (content: string): string => wireSignature('anthropic-compaction', content);
const ASSISTANT_ONLY = new Set(['thinking', 'redacted_thinking', 'tool_use', 'server_tool_use']);

/** The blocks of a message (a string content is one text block). */
export function anthropicBlocks(m: Json): Json[] {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : records(m.content);
}

const messagesOf = (body: Json): Json[] => records(body.messages);

/** Where each `cache_control` of a body sits, as paths like `tools.1`, `system.0`, `messages.3.content.0`. */
export function cacheControlPaths(body: Json): string[] {
  const out: string[] = [];
  const walk = (list: unknown, path: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((b, i) => {
      if (!isRec(b)) return;
      if (b.cache_control !== undefined && b.cache_control !== null) out.push(`${path}.${i}`);
      if (b.type === 'tool_result') walk(b.content, `${path}.${i}.content`);
    });
  };
  walk(body.tools, 'tools');
  walk(body.system, 'system');
  if (Array.isArray(body.messages)) body.messages.forEach((m, i) => { if (isRec(m)) walk(m.content, `messages.${i}.content`); });
  return out;
}

/** Models that refuse an assistant turn last ("does not support assistant message prefill"). */
const noPrefill = (model: unknown): boolean => typeof model === 'string' && /claude-(opus|sonnet|haiku)-(4-[6-9]|[5-9])/.test(model);

/** Whether the body turns extended thinking on. */
const thinkingOn = (body: Json): boolean => isRec(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');

function rule(id: string, wording: string, source: string, check: (body: Json, ms: Json[], ctx: AnthropicCheckContext) => RuleFinding[]): WireRule<AnthropicCheckContext> {
  return { id: `anthropic/${id}`, provider: 'anthropic', wire: 'anthropic-messages', wording, source, check: (body, ctx) => check(body, messagesOf(body), ctx) };
}

function cacheProblems(blocks: readonly Json[], where: string, out: RuleFinding[]): void {
  blocks.forEach((b, j) => {
    if (b.cache_control !== undefined && b.cache_control !== null) {
      const cc = b.cache_control;
      if (!isRec(cc) || cc.type !== 'ephemeral') out.push({ path: `${where}.${j}.cache_control.type`, message: `${where}.${j}.cache_control.type: Input should be 'ephemeral'` });
      if (b.type === 'thinking' || b.type === 'redacted_thinking') out.push({ path: `${where}.${j}`, message: `${where}.${j}.${String(b.type)}.cache_control: Extra inputs are not permitted` });
      if (b.type === 'text' && blank(b.text)) out.push({ path: `${where}.${j}`, message: `${where}.${j}.text: cache_control cannot be set for empty text blocks` });
    }
    if (b.type === 'tool_result') cacheProblems(records(b.content), `${where}.${j}.content`, out);
  });
}

/** The Messages API rules, in the order the API reports them. */
export const ANTHROPIC_RULES: readonly WireRule<AnthropicCheckContext>[] = [
  rule('messages-non-empty', 'at least one message', MESSAGES_API, (_b, ms) => (ms.length === 0 ? [{ path: 'messages', message: 'messages: at least one message is required' }] : [])),
  rule('roles', 'messages have the role user or assistant (system goes in the top-level `system`)', MESSAGES_API, (_b, ms) => ms.flatMap((m, i) => (m.role === 'user' || m.role === 'assistant' ? [] : [{ path: `messages.${i}.role`, message: `messages.${i}.role: Input should be 'user' or 'assistant'` }]))),
  rule('first-message-user', 'the first message uses the user role', MESSAGES_API, (_b, ms) => (ms.length > 0 && ms[0].role !== 'user' ? [{ path: 'messages.0', message: 'messages: first message must use the "user" role' }] : [])),
  rule('alternate-roles', 'user and assistant turns alternate', MESSAGES_API, (_b, ms) => {
    const at = ms.findIndex((m, i) => i > 0 && m.role === ms[i - 1].role);
    return at < 0 ? [] : [{ path: `messages.${at}`, message: 'messages: roles must alternate between "user" and "assistant", but found multiple "' + String(ms[at].role) + '" roles in a row' }];
  }),
  rule('last-message-user', 'the conversation ends with a user turn on models without prefill ("This model does not support assistant message prefill")', 'https://github.com/smallmain/vscode-unify-chat-provider/issues/249', (body, ms, ctx) => {
    const last = ms[ms.length - 1];
    if (!last || last.role === 'user' || !(ctx.strictLastTurn || noPrefill(body.model))) return [];
    return [{ path: `messages.${ms.length - 1}`, message: 'This model does not support assistant message prefill. The conversation must end with a user message.' }];
  }),
  rule('non-empty-content', '"all messages must have non-empty content except for the optional final assistant message"', MESSAGES_API, (_b, ms) => ms.flatMap((m, i) => (anthropicBlocks(m).length === 0 && !(i === ms.length - 1 && m.role === 'assistant') ? [{ path: `messages.${i}`, message: `messages.${i}: all messages must have non-empty content except for the optional final assistant message` }] : []))),
  rule('no-blank-text', '"text content blocks must contain non-whitespace text"', 'https://github.com/NousResearch/hermes-agent/pull/63983', (_b, ms) => {
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (b.type === 'text' && blank(b.text)) out.push({ path: `messages.${i}.content.${j}`, message: 'messages: text content blocks must contain non-whitespace text' });
      if (b.type === 'tool_result' && typeof b.content === 'string' && blank(b.content)) out.push({ path: `messages.${i}.content.${j}`, message: 'messages: text content blocks must contain non-whitespace text' });
      if (b.type === 'tool_result') records(b.content).forEach((c, k) => {
        if (c.type === 'text' && blank(c.text)) out.push({ path: `messages.${i}.content.${j}.content.${k}`, message: 'messages: text content blocks must contain non-whitespace text' });
      });
    }));
    return out;
  }),
  rule('blocks-in-their-role', 'thinking and tool_use blocks only in assistant turns, tool_result blocks only in user turns', MESSAGES_API, (_b, ms) => {
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (ASSISTANT_ONLY.has(String(b.type)) && m.role !== 'assistant') out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: ${String(b.type)} blocks are only allowed in assistant messages` });
      if (b.type === 'tool_result' && m.role !== 'user') out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages` });
    }));
    return out;
  }),
  rule('tool-use-shape', 'a tool_use has a unique id, a name and an object input', MESSAGES_API, (_b, ms) => {
    const out: RuleFinding[] = [];
    const seen = new Set<string>();
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (b.type !== 'tool_use') return;
      const where = `messages.${i}.content.${j}`;
      if (typeof b.id !== 'string' || b.id === '') out.push({ path: `${where}.id`, message: `${where}.tool_use.id: Field required` });
      if (typeof b.name !== 'string' || b.name === '') out.push({ path: `${where}.name`, message: `${where}.tool_use.name: Field required` });
      if (!isRec(b.input)) out.push({ path: `${where}.input`, message: `${where}.tool_use.input: Input should be a valid dictionary` });
      if (typeof b.id === 'string' && seen.has(b.id)) out.push({ path: `${where}.id`, message: `messages.${i}.content.${j}: \`tool_use\` ids must be unique` });
      if (typeof b.id === 'string') seen.add(b.id);
    }));
    return out;
  }),
  rule('tool-results-follow', '"Each tool_use block must have a corresponding tool_result block in the next message", the tool_result blocks first', TOOL_USE, (_b, ms) => {
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => {
      if (m.role !== 'assistant') return;
      const ids = anthropicBlocks(m).filter((b) => b.type === 'tool_use').map((b) => String(b.id));
      if (ids.length === 0) return;
      const next = ms[i + 1];
      const blocks = next && next.role === 'user' ? anthropicBlocks(next) : [];
      const lead: string[] = [];
      for (const b of blocks) {
        if (b.type !== 'tool_result') break;
        lead.push(String(b.tool_use_id));
      }
      const missing = ids.filter((id) => !lead.includes(id));
      if (missing.length > 0) out.push({ path: `messages.${i}`, message: `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.` });
    });
    return out;
  }),
  rule('tool-result-has-use', 'a tool_result answers a tool_use of the turn right before it, once', TOOL_USE, (_b, ms) => {
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => {
      if (m.role !== 'user') return;
      const prev = ms[i - 1];
      const uses = new Set(prev && prev.role === 'assistant' ? anthropicBlocks(prev).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : []);
      const answered = new Set<string>();
      anthropicBlocks(m).forEach((b, j) => {
        if (b.type !== 'tool_result') return;
        const id = String(b.tool_use_id);
        if (!uses.has(id)) out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.` });
        else if (answered.has(id)) out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: each \`tool_use\` must have a single result. Found multiple \`tool_result\` blocks with id: ${id}` });
        answered.add(id);
      });
    });
    return out;
  }),
  rule('thinking-signed', 'a thinking block sent back carries its `signature`', THINKING, (_b, ms) => {
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (b.type === 'thinking' && (typeof b.signature !== 'string' || b.signature === '')) out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}.thinking.signature: Field required` });
    }));
    return out;
  }),
  rule('thinking-byte-exact', 'thinking blocks come back exactly as they were received ("Invalid `signature` in `thinking` block")', THINKING, (_b, ms, ctx) => {
    if (!ctx.verifySignatures) return [];
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (b.type === 'thinking' && typeof b.signature === 'string' && b.signature !== '' && !verifyWireSignature('anthropic-thinking', String(b.thinking ?? ''), b.signature)) out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block` });
    }));
    return out;
  }),
  rule('compaction-byte-exact', 'a compaction block comes back as it was returned: its `encrypted_content` is "opaque metadata from prior compaction, to be round-tripped verbatim" with its summary', COMPACTION, (_b, ms, ctx) => {
    if (!ctx.verifySignatures) return [];
    const out: RuleFinding[] = [];
    ms.forEach((m, i) => anthropicBlocks(m).forEach((b, j) => {
      if (b.type !== 'compaction') return;
      if (b.content !== undefined && b.content !== null && typeof b.content !== 'string') out.push({ path: `messages.${i}.content.${j}.content`, message: `messages.${i}.content.${j}.compaction.content: Input should be a valid string` });
      else if (typeof b.encrypted_content === 'string' && !verifyWireSignature('anthropic-compaction', String(b.content ?? ''), b.encrypted_content)) out.push({ path: `messages.${i}.content.${j}`, message: `messages.${i}.content.${j}: Invalid \`encrypted_content\` in \`compaction\` block` });
    }));
    return out;
  }),
  rule('thinking-first-in-tool-loop', 'with thinking on, the assistant turn of the current tool loop starts with its thinking block', THINKING, (body, ms) => {
    if (!thinkingOn(body)) return [];
    let lastUserText = -1;
    ms.forEach((m, i) => {
      if (m.role === 'user' && anthropicBlocks(m).some((b) => b.type !== 'tool_result')) lastUserText = i;
    });
    const out: RuleFinding[] = [];
    for (let i = lastUserText + 1; i < ms.length; i++) {
      const blocks = anthropicBlocks(ms[i]);
      if (ms[i].role !== 'assistant' || !blocks.some((b) => b.type === 'tool_use')) continue;
      const first = blocks[0];
      if (first && first.type !== 'thinking' && first.type !== 'redacted_thinking') {
        out.push({ path: `messages.${i}.content.0`, message: `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking` });
      }
    }
    return out;
  }),
  rule('system-blocks', 'a `system` list holds text blocks with non-whitespace text', MESSAGES_API, (body) => {
    if (body.system === undefined || typeof body.system === 'string') return [];
    if (!Array.isArray(body.system)) return [{ path: 'system', message: 'system: Input should be a valid list' }];
    return body.system.flatMap((b: unknown, j) => (!isRec(b) || b.type !== 'text' || blank(b.text) ? [{ path: `system.${j}`, message: `system.${j}: text content blocks must contain non-whitespace text` }] : []));
  }),
  rule('tool-definitions', 'each tool has a name and an input_schema', 'https://docs.claude.com/en/docs/agents-and-tools/tool-use/overview', (body) => {
    if (!Array.isArray(body.tools)) return [];
    return body.tools.flatMap((t: unknown, j) => (!isRec(t) || typeof t.name !== 'string' || (t.type === undefined && !isRec(t.input_schema)) ? [{ path: `tools.${j}`, message: `tools.${j}.custom.input_schema: Field required` }] : []));
  }),
  rule('cache-control', 'cache_control only `ephemeral`, never on thinking blocks or empty text ("cache_control cannot be set for empty text blocks")', CACHING, (body, ms) => {
    const out: RuleFinding[] = [];
    cacheProblems(records(body.tools), 'tools', out);
    cacheProblems(records(body.system), 'system', out);
    ms.forEach((m, i) => cacheProblems(records(m.content), `messages.${i}.content`, out));
    return out;
  }),
  rule('cache-breakpoints-max-4', '"A maximum of 4 blocks with cache_control may be provided"', CACHING, (body) => {
    const found = cacheControlPaths(body).length;
    return found > 4 ? [{ path: 'cache_control', message: `A maximum of 4 blocks with cache_control may be provided. Found ${found}.` }] : [];
  }),
];

/** The rules that need a whole request body (model, max_tokens), not only `messages`. */
export const ANTHROPIC_BODY_FIELD_RULES: readonly WireRule<AnthropicCheckContext>[] = [
  rule('required-fields', '`model` and `max_tokens` are required', MESSAGES_API, (body) => [
    ...(typeof body.model !== 'string' ? [{ path: 'model', message: 'model: Field required' }] : []),
    ...(typeof body.max_tokens !== 'number' ? [{ path: 'max_tokens', message: 'max_tokens: Field required' }] : []),
  ]),
];
