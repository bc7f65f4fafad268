// Amazon Bedrock Converse / ConverseStream: the rules a request's `messages` must keep, each
// with the wording Bedrock answers (a 400 ValidationException) and where it is documented or
// reported. Claude models behind Converse add their own (Anthropic's) checks, which Bedrock
// passes on prefixed by "The model returned the following errors:".
import { verifyWireSignature } from '../core/signatures.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { blank, isRec, records } from '../core/wire-rule.js';

const CONVERSE_GUIDE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html';
const MODEL_ERRORS = 'The model returned the following errors: ';

/** The `messages` of a Converse body, or of a CountTokens body's `input.converse`. */
export function converseMessages(body: Json): Json[] {
  if (Array.isArray(body.messages)) return records(body.messages);
  const input = isRec(body.input) && isRec(body.input.converse) ? body.input.converse : undefined;
  return input ? records(input.messages) : [];
}

const blocksOf = (m: Json): Json[] => records(m.content);

function rule(id: string, wording: string, source: string, check: (messages: Json[], body: Json) => RuleFinding[]): WireRule {
  return { id: `bedrock/${id}`, provider: 'bedrock', wire: 'bedrock-converse', wording, source, check: (body) => check(converseMessages(body), body) };
}

/** The Converse rules, in the order Bedrock reports them. */
export const BEDROCK_RULES: readonly WireRule[] = [
  rule(
    'first-message-user',
    '"You start a conversation by sending a message as a user (user role) to the model."',
    CONVERSE_GUIDE,
    (ms) => (ms.length > 0 && ms[0].role !== 'user' ? [{ path: 'messages.0', message: 'A conversation must start with a user message. Try again with a conversation that starts with a user message.' }] : []),
  ),
  rule(
    'alternate-roles',
    'user and assistant messages alternate (Bedrock: "A conversation must alternate between user and assistant roles")',
    'https://github.com/langchain-ai/langchainjs/issues/6724',
    (ms) => {
      const at = ms.findIndex((m, i) => i > 0 && m.role === ms[i - 1].role);
      return at < 0 ? [] : [{ path: `messages.${at}`, message: 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.' }];
    },
  ),
  rule(
    'last-message-user',
    'the last message is the user\'s ("the last message must be a user message, when using the Bedrock service")',
    'https://github.com/microsoft/semantic-kernel/issues/10281',
    (ms) => (ms.length > 0 && ms[ms.length - 1].role !== 'user' ? [{ path: `messages.${ms.length - 1}`, message: `${MODEL_ERRORS}This model does not support assistant message prefill. The conversation must end with a user message.` }] : []),
  ),
  rule(
    'non-empty-content',
    'every Message has at least one ContentBlock ("The content field in the Message object at messages.N is empty")',
    'https://github.com/archestra-ai/archestra/pull/4220',
    (ms) => ms.flatMap((m, i) => (blocksOf(m).length === 0 ? [{ path: `messages.${i}`, message: `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.` }] : [])),
  ),
  rule(
    'no-blank-text',
    'a text ContentBlock holds non-whitespace text ("The text field in the ContentBlock object at messages.N.content.M is blank")',
    'https://github.com/OpenHands/OpenHands/issues/5339',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => blocksOf(m).forEach((b, j) => {
        if ('text' in b && blank(b.text)) out.push({ path: `messages.${i}.content.${j}`, message: `The text field in the ContentBlock object at messages.${i}.content.${j} is blank. Add text to the text field, and try again.` });
        if (isRec(b.toolResult)) records(b.toolResult.content).forEach((c, k) => {
          if ('text' in c && blank(c.text)) out.push({ path: `messages.${i}.content.${j}.toolResult.content.${k}`, message: `The text field in the ToolResultContentBlock object at messages.${i}.content.${j}.toolResult.content.${k} is blank. Add text to the text field, and try again.` });
        });
      }));
      return out;
    },
  ),
  rule(
    'tool-config-required',
    'a request whose messages hold toolUse or toolResult blocks defines `toolConfig`',
    'https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html',
    (ms, body) => {
      const hasTools = isRec(body.toolConfig) || (isRec(body.input) && isRec(body.input.converse) && isRec(body.input.converse.toolConfig));
      if (hasTools) return [];
      const uses = ms.some((m) => blocksOf(m).some((b) => isRec(b.toolUse) || isRec(b.toolResult)));
      return uses ? [{ path: 'toolConfig', message: 'The toolConfig field must be defined when using toolUse and toolResult content blocks.' }] : [];
    },
  ),
  rule(
    'tool-use-in-assistant',
    'toolUse and reasoningContent blocks only in assistant messages, toolResult only in user messages',
    'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => blocksOf(m).forEach((b, j) => {
        if ((isRec(b.toolUse) || isRec(b.reasoningContent)) && m.role !== 'assistant') out.push({ path: `messages.${i}.content.${j}`, message: `${MODEL_ERRORS}messages.${i}.content.${j}: ${isRec(b.toolUse) ? 'tool_use' : 'thinking'} blocks are only allowed in assistant messages` });
        if (isRec(b.toolResult) && m.role !== 'user') out.push({ path: `messages.${i}.content.${j}`, message: `${MODEL_ERRORS}messages.${i}.content.${j}: tool_result blocks are only allowed in user messages` });
      }));
      return out;
    },
  ),
  rule(
    'tool-input-object',
    'toolUse.input is the JSON object of the call\'s arguments',
    'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => blocksOf(m).forEach((b, j) => {
        if (isRec(b.toolUse) && !isRec(b.toolUse.input)) out.push({ path: `messages.${i}.content.${j}.toolUse.input`, message: `${MODEL_ERRORS}messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary` });
      }));
      return out;
    },
  ),
  rule(
    'tool-results-follow',
    'every toolUse is answered by a toolResult in the next (user) message ("Expected toolResult blocks at messages.N.content for the following Ids")',
    'https://github.com/agno-agi/agno/issues/6698',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        if (m.role !== 'assistant') return;
        const ids = blocksOf(m).filter((b) => isRec(b.toolUse)).map((b) => String((b.toolUse as Json).toolUseId));
        if (ids.length === 0) return;
        const next = ms[i + 1];
        const answered = new Set(next ? blocksOf(next).filter((b) => isRec(b.toolResult)).map((b) => String((b.toolResult as Json).toolUseId)) : []);
        const missing = ids.filter((id) => !answered.has(id));
        if (missing.length > 0) out.push({ path: `messages.${i + 1}.content`, message: `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}` });
      });
      return out;
    },
  ),
  rule(
    'tool-result-has-use',
    'a toolResult answers a toolUse of the message right before it',
    'https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        const prev = ms[i - 1];
        const uses = new Set(prev && prev.role === 'assistant' ? blocksOf(prev).filter((b) => isRec(b.toolUse)).map((b) => String((b.toolUse as Json).toolUseId)) : []);
        blocksOf(m).forEach((b, j) => {
          if (!isRec(b.toolResult) || m.role !== 'user') return;
          const id = String(b.toolResult.toolUseId);
          if (!uses.has(id)) out.push({ path: `messages.${i}.content.${j}`, message: `${MODEL_ERRORS}messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.` });
        });
      });
      return out;
    },
  ),
  rule(
    'reasoning-signed',
    'reasoning sent back carries its signature: "You must submit the signature in subsequent Converse requests" (unsigned reasoning is not sent back)',
    'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => blocksOf(m).forEach((b, j) => {
        const rt = isRec(b.reasoningContent) ? b.reasoningContent.reasoningText : undefined;
        if (isRec(rt) && (typeof rt.signature !== 'string' || rt.signature === '')) out.push({ path: `messages.${i}.content.${j}`, message: `${MODEL_ERRORS}messages.${i}.content.${j}.thinking.signature: Field required` });
      }));
      return out;
    },
  ),
  rule(
    'reasoning-byte-exact',
    'signed reasoning comes back unmodified: "If the previous messages are tampered with, the response throws an error"',
    'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => blocksOf(m).forEach((b, j) => {
        const rt = isRec(b.reasoningContent) ? b.reasoningContent.reasoningText : undefined;
        if (isRec(rt) && typeof rt.signature === 'string' && rt.signature !== '' && !verifyWireSignature('bedrock-reasoning', String(rt.text ?? ''), rt.signature)) {
          out.push({ path: `messages.${i}.content.${j}`, message: `${MODEL_ERRORS}messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block` });
        }
      }));
      return out;
    },
  ),
];
