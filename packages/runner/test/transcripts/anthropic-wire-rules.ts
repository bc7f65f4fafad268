// The Anthropic Messages API's request rules for a conversation, as its documentation states
// them (tool use: "tool_result blocks must immediately follow their corresponding tool_use
// blocks"; "in the user message containing tool results, the tool_result blocks must come first
// in the content array"; ids `^[a-zA-Z0-9_-]+$`; non-empty content except an optional final
// assistant turn; a conversation starts with a user turn). Messages are checked as sent, with
// the API's own error wording where it has one, so a failure reads like the 400 it predicts.

/** One content block of a Messages API turn. */
export type WireBlock = Record<string, unknown>;

/** One turn of a Messages API request. */
export interface WireTurn {
  role: string;
  content: WireBlock[] | string;
}

const VALID_ID = /^[a-zA-Z0-9_-]+$/;

function blocks(turn: WireTurn): WireBlock[] {
  if (typeof turn.content === 'string') return turn.content === '' ? [] : [{ type: 'text', text: turn.content }];
  return turn.content;
}

/** Every rule `messages` breaks, as `messages.<i>: <what the API would say>` (empty: accepted). */
export function anthropicWireViolations(messages: readonly WireTurn[]): string[] {
  const out: string[] = [];
  if (messages.length === 0) return ['messages: at least one message is required'];
  if (messages[0].role !== 'user') out.push('messages.0: the first message must use the user role');
  const uses = new Set<string>();
  messages.forEach((turn, i) => {
    const at = `messages.${i}`;
    if (turn.role !== 'user' && turn.role !== 'assistant') out.push(`${at}: role must be user or assistant, got ${turn.role}`);
    const content = blocks(turn);
    const last = i === messages.length - 1;
    if (content.length === 0 && !(last && turn.role === 'assistant')) out.push(`${at}: all messages must have non-empty content except for the optional final assistant message`);
    content.forEach((b, j) => {
      if (b.type === 'text' && (typeof b.text !== 'string' || b.text === '')) out.push(`${at}.content.${j}: text content blocks must be non-empty`);
      if (b.type === 'tool_use') {
        const id = String(b.id);
        if (!VALID_ID.test(id)) out.push(`${at}.content.${j}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        if (uses.has(id)) out.push(`${at}: \`tool_use\` ids must be unique: ${id}`);
        uses.add(id);
        if (turn.role !== 'assistant') out.push(`${at}.content.${j}: tool_use blocks belong to assistant messages`);
      }
      if (b.type === 'tool_result' && turn.role !== 'user') out.push(`${at}.content.${j}: tool_result blocks belong to user messages`);
    });

    const resultIds = content.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id));
    if (resultIds.length > 0) {
      const firstOther = content.findIndex((b) => b.type !== 'tool_result');
      const lastResult = content.map((b) => b.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && firstOther < lastResult) out.push(`${at}: tool_result blocks must come first in the content, before any other block`);
      const prev = messages[i - 1];
      const declared = new Set(prev?.role === 'assistant' ? blocks(prev).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : []);
      const unexpected = resultIds.filter((id) => !declared.has(id));
      if (unexpected.length > 0) out.push(`${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
      if (new Set(resultIds).size !== resultIds.length) out.push(`${at}: two tool_result blocks answer the same tool_use`);
    }
    if (turn.role === 'assistant') {
      const useIds = content.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
      if (useIds.length > 0) {
        const next = messages[i + 1];
        const answered = new Set(next?.role === 'user' ? blocks(next).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : []);
        const missing = useIds.filter((id) => !answered.has(id));
        if (missing.length > 0) out.push(`${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      }
    }
  });
  return out;
}
