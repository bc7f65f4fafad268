// OpenRouter: `reasoning_details` come back unmodified on the assistant turns they came with.
// OpenRouter passes requests on to the model's provider, and the provider enforces its own rules
// on what the details carry: Gemini 3 wants the thought signature of the current turn's calls
// (a `reasoning.encrypted` detail whose `id` is the call's), Claude with reasoning on wants the
// current tool loop's assistant turn to start with its signed thinking; both reject a changed
// signature. Errors come back wrapped ("Provider returned error", with the provider's raw body).
import { verifyWireSignature, wireSignature } from '../core/signatures.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { isRec, records } from '../core/wire-rule.js';
import { CORRUPTED_SIGNATURE_MESSAGE, missingSignatureMessage } from '../core/gemini-signature.js';
import { chatMessages, lastUserIndex, modelOf, toolCallsOf } from './chat-messages.js';

const REASONING_DOCS = 'https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks';

/** The signature a local OpenRouter server gives a `reasoning.text` detail (bound to its text). */
export const openRouterTextSignature = (text: string): string => wireSignature('openrouter-reasoning', `text:${text}`);

/** The `data` a local OpenRouter server gives a `reasoning.encrypted` detail (bound to its id). */
export const openRouterEncryptedData = (id: string): string => wireSignature('openrouter-reasoning', `encrypted:${id}`);

const detailsOf = (m: Json): Json[] => records(m.reasoning_details);
const isGemini3 = (model: string): boolean => /^google\/gemini-([3-9]|\d\d)/.test(model);
const isClaude = (model: string): boolean => /^anthropic\/claude/.test(model);

/** Whether the body turns reasoning on for a Claude model (`reasoning` parameter or a `:thinking` variant). */
function claudeThinking(body: Json): boolean {
  const model = modelOf(body);
  if (!isClaude(model)) return false;
  if (model.endsWith(':thinking')) return true;
  const r = body.reasoning;
  return isRec(r) && r.enabled !== false && (r.enabled === true || r.max_tokens !== undefined || r.effort !== undefined);
}

/** The provider name OpenRouter reports in its wrapped errors for a model. */
export function openRouterProviderName(model: string): string {
  if (isClaude(model)) return 'Anthropic';
  if (model.startsWith('google/')) return 'Google AI Studio';
  return 'OpenAI';
}

/** OpenRouter's rules (the upstream provider's, as OpenRouter relays them). */
export const OPENROUTER_RULES: readonly WireRule[] = [
  {
    id: 'openrouter/reasoning-details-unmodified',
    provider: 'openrouter',
    wire: 'openai-chat',
    wording: '"the reasoning_details ... must be passed back unmodified"; a changed or moved signature is rejected by the model\'s provider',
    source: REASONING_DOCS,
    check(body): RuleFinding[] {
      const ms = chatMessages(body);
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => detailsOf(m).forEach((d, j) => {
        const textOk = d.type !== 'reasoning.text' || d.signature === undefined || d.signature === null || verifyWireSignature('openrouter-reasoning', `text:${String(d.text ?? '')}`, d.signature);
        const encOk = d.type !== 'reasoning.encrypted' || (verifyWireSignature('openrouter-reasoning', `encrypted:${String(d.id ?? '')}`, d.data) && (d.id === undefined || d.id === null || toolCallsOf(m).some((c) => c.id === d.id)));
        if (!textOk || !encOk) out.push({ path: `messages[${i}].reasoning_details[${j}]`, message: d.type === 'reasoning.text' ? `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block` : CORRUPTED_SIGNATURE_MESSAGE });
      }));
      return out;
    },
  },
  {
    id: 'openrouter/gemini-current-turn-signature',
    provider: 'openrouter',
    wire: 'openai-chat',
    wording: 'for Gemini 3, the `reasoning.encrypted` detail of each current-turn step\'s first call comes back with it (Google: "Function call is missing a thought_signature")',
    source: REASONING_DOCS,
    check(body): RuleFinding[] {
      if (!isGemini3(modelOf(body))) return [];
      const ms = chatMessages(body);
      const out: RuleFinding[] = [];
      for (let i = lastUserIndex(ms) + 1; i < ms.length; i++) {
        const first = toolCallsOf(ms[i])[0];
        if (ms[i].role !== 'assistant' || !first) continue;
        const signed = detailsOf(ms[i]).some((d) => d.type === 'reasoning.encrypted' && d.id === first.id);
        if (!signed) out.push({ path: `messages[${i}].reasoning_details`, message: missingSignatureMessage(isRec(first.function) ? String(first.function.name) : '', ms.slice(0, i + 1).filter((m) => m.role !== 'system').length) });
      }
      return out;
    },
  },
  {
    id: 'openrouter/claude-thinking-first',
    provider: 'openrouter',
    wire: 'openai-chat',
    wording: 'for Claude with reasoning on, the current tool loop\'s assistant turn comes back with its signed thinking (Anthropic: "a final `assistant` message must start with a thinking block")',
    source: 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks',
    check(body): RuleFinding[] {
      if (!claudeThinking(body)) return [];
      const ms = chatMessages(body);
      const start = lastUserIndex(ms) + 1;
      let lastCall = -1;
      for (let i = start; i < ms.length; i++) if (ms[i].role === 'assistant' && toolCallsOf(ms[i]).length > 0) lastCall = i;
      if (lastCall < 0) return [];
      const thinking = detailsOf(ms[lastCall]).some((d) => (d.type === 'reasoning.text' && typeof d.signature === 'string') || d.type === 'reasoning.encrypted');
      return thinking ? [] : [{ path: `messages[${lastCall}]`, message: `messages.${lastCall}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking` }];
    },
  },
];
