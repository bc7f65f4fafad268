import type { Message } from '@nanobot/schema';
import type { ProviderSpec } from './registry/provider-spec.js';
import { OPENAI_MESSAGE_KEYS } from './sanitize-request-messages.js';

/**
 * The message keys a provider gets back from stored history: the OpenAI keys (with Gemini's
 * `extra_content`), without `reasoning_content` where the provider rejects unknown fields
 * (Mistral), plus OpenRouter's `reasoning_details`, which must return unmodified for signed
 * reasoning (Gemini 3, Claude) to continue. Pure.
 */
export function messageKeysFor(spec: ProviderSpec | undefined): readonly string[] {
  if (!spec) return OPENAI_MESSAGE_KEYS;
  let keys = OPENAI_MESSAGE_KEYS;
  if (spec.stripHistoryReasoningContent) keys = keys.filter((k) => k !== 'reasoning_content');
  if (spec.name === 'openrouter' || spec.gatewayReasoningStyle === 'reasoning_effort') keys = [...keys, 'reasoning_details'];
  return keys;
}

/** The thinking switch in a provider's own request shape. */
function thinkingFields(style: ProviderSpec['thinkingStyle'], enabled: boolean): Record<string, unknown> {
  if (style === 'thinking_type') return { thinking: { type: enabled ? 'enabled' : 'disabled' } };
  if (style === 'enable_thinking') return { enable_thinking: enabled };
  if (style === 'reasoning_split') return { reasoning_split: enabled };
  return {};
}

/** The text of content parts joined (DeepSeek accepts only string content). */
function textOf(content: Message['content']): Message['content'] {
  if (!Array.isArray(content)) return content;
  const text = content.map((part) => (typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
  return text === '' ? JSON.stringify(content) : text;
}

/** The models DeepSeek serves with image input (everything else takes string content only). */
const DEEPSEEK_MULTIMODAL_MODELS = new Set(['deepseek-v4-flash-vision-exp']);

/**
 * A provider's request quirks applied to a chat-completions body built for `model`, on a copy,
 * as the reference's OpenAI-compatible provider applies its spec:
 * - `max_completion_tokens` instead of `max_tokens` where the spec says so;
 * - per-model overrides (`kimi-k2.7` → `temperature: 1`), the first pattern in the model name;
 * - `reasoning_effort` remapped to the provider's vocabulary (Mistral: `low` → `none`), dropped
 *   for models that always reason (Magistral) and when it means "none";
 * - the thinking switch in the provider's shape (`thinking: { type }`, `enable_thinking`,
 *   `reasoning_split`) whenever an effort is given;
 * - string-only content for DeepSeek's text models.
 * `effort` is the request's `reasoningEffort`. Pure.
 */
export function applySpecQuirks(params: Record<string, unknown>, spec: ProviderSpec, model: string, effort: string | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  const modelLower = model.toLowerCase();
  if (spec.supportsMaxCompletionTokens && out.max_tokens !== undefined) {
    out.max_completion_tokens = out.max_tokens;
    delete out.max_tokens;
  }
  // Reasoning rejects a temperature; a per-model override may set one again (K2.7 needs 1.0).
  if (typeof effort === 'string' && effort.toLowerCase() !== 'none') delete out.temperature;
  const override = spec.modelOverrides.find(([pattern]) => modelLower.includes(pattern));
  if (override) Object.assign(out, override[1]);

  if (typeof effort === 'string') {
    let semantic = effort.toLowerCase();
    if (semantic === 'minimum') semantic = 'minimal';
    let wire: string | undefined = effort;
    const remap = spec.reasoningEffortRemap.find(([from]) => from === semantic);
    if (remap) {
      wire = remap[1] || undefined;
      semantic = remap[1] || 'none';
    }
    const implicit = spec.implicitReasoningModels.some((pattern) => modelLower.includes(pattern));
    delete out.reasoning_effort;
    if (!implicit && wire && semantic !== 'none') out.reasoning_effort = wire;
    if (spec.thinkingStyle) Object.assign(out, thinkingFields(spec.thinkingStyle, semantic !== 'none' && semantic !== 'minimal'));
  }

  if (spec.name === 'deepseek' && !DEEPSEEK_MULTIMODAL_MODELS.has(modelLower.slice(modelLower.lastIndexOf('/') + 1)) && Array.isArray(out.messages)) {
    out.messages = (out.messages as Message[]).map((m) => (Array.isArray(m.content) && !(m.role === 'assistant' && m.tool_calls) ? { ...m, content: textOf(m.content) } : m));
  }
  return out;
}
