// DeepSeek thinking mode: an assistant turn that called tools is sent back with its
// `reasoning_content`. Which turns, depends on the model, as DeepSeek documents it:
// `deepseek-reasoner` (and `deepseek-chat` with `thinking: {type: "enabled"}`) need it on the
// tool-calling turns of the current tool loop; the V4 models (thinking on unless disabled) on
// every tool-calling turn of the history. Without thinking mode nothing is required.
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { isRec } from '../core/wire-rule.js';
import { chatMessages, lastUserIndex, modelOf, toolCallsOf } from './chat-messages.js';

const THINKING_GUIDE = 'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls';

/** How a body's model thinks: not at all, V3.2-style (current loop), or V4-style (whole history). */
export function deepseekThinking(body: Json): 'off' | 'current-loop' | 'history' {
  const model = modelOf(body);
  const thinking = isRec(body.thinking) ? body.thinking.type : undefined;
  if (thinking === 'disabled') return 'off';
  if (/^deepseek-v4/.test(model)) return 'history';
  if (model === 'deepseek-reasoner' || thinking === 'enabled') return 'current-loop';
  return 'off';
}

/** DeepSeek's own rules. */
export const DEEPSEEK_RULES: readonly WireRule[] = [
  {
    id: 'deepseek/reasoning-content-on-tool-calls',
    provider: 'deepseek',
    wire: 'openai-chat',
    wording: '"the tool invocation process in thinking mode requires users to pass back reasoning_content to the API" (deepseek-reasoner: the current tool loop; V4: every tool-calling turn)',
    source: THINKING_GUIDE,
    check(body): RuleFinding[] {
      const mode = deepseekThinking(body);
      if (mode === 'off') return [];
      const ms = chatMessages(body);
      const from = mode === 'history' ? 0 : lastUserIndex(ms) + 1;
      const out: RuleFinding[] = [];
      for (let i = from; i < ms.length; i++) {
        const m = ms[i];
        if (m.role !== 'assistant' || toolCallsOf(m).length === 0 || typeof m.reasoning_content === 'string') continue;
        out.push({
          path: `messages[${i}].reasoning_content`,
          message: mode === 'history'
            ? 'The `reasoning_content` in the thinking mode must be passed back to the API.'
            : `Missing \`reasoning_content\` field in the assistant message at message index ${i}. For more information, please refer to ${THINKING_GUIDE}`,
          code: 'invalid_request_error',
        });
      }
      return out;
    },
  },
];
