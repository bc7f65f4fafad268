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

/** Kimi K3: always reasons, accepts only `reasoning_effort: "max"`, a fixed temperature and `max_completion_tokens`. */
const KIMI_K3 = 'kimi-k3';
/** Kimi models whose thinking is switched by `thinking: { type }` (Moonshot rejects it together with `reasoning_effort`). */
const KIMI_THINKING_MODELS = new Set(['kimi-k2.5', 'kimi-k2.6', 'kimi-k2.7', 'kimi-k2.7-code', 'kimi-k2.7-code-highspeed', 'k2.6-code-preview']);
/** Kimi models that always think: thinking is never switched off for them. */
const KIMI_ALWAYS_THINKING_MODELS = new Set(['kimi-k2.7-code', 'kimi-k2.7-code-highspeed']);
/** Kimi models whose temperature Moonshot picks from the thinking mode (1.0 on, 0.6 off): none is sent. */
const KIMI_SERVER_MANAGED_TEMPERATURE = new Set(['kimi-k2.5', 'kimi-k2.6']);
/** Xiaomi MiMo models that think (mimo-v2-flash does not). */
const MIMO_THINKING_MODELS = new Set(['mimo-v2.5-pro', 'mimo-v2.5', 'mimo-v2-pro', 'mimo-v2-omni']);
/** Qwen models whose thinking is switched by `enable_thinking`, whoever serves them. */
const QWEN_THINKING_MODELS = new Set(['qwen3.7-max', 'qwen3.7-plus', 'qwen3.6-max-preview', 'qwen3.6-plus', 'qwen3.6-flash', 'qwen3.5-plus', 'qwen3.5-flash']);

/** The last `/` segment of a model name, lower-cased (`moonshotai/Kimi-K2.6` → `kimi-k2.6`). */
function slugOf(model: string): string {
  const lower = model.toLowerCase();
  return lower.slice(lower.lastIndexOf('/') + 1);
}

/**
 * The thinking switch a model itself needs, whichever provider serves it (Kimi and MiMo:
 * `thinking: { type }`; Qwen 3.5+: `enable_thinking`), as the reference's per-model styles; `''`
 * for the others. Pure.
 */
export function modelThinkingStyle(model: string): ProviderSpec['thinkingStyle'] {
  const slug = slugOf(model);
  if (KIMI_THINKING_MODELS.has(slug) || MIMO_THINKING_MODELS.has(slug)) return 'thinking_type';
  if (QWEN_THINKING_MODELS.has(slug)) return 'enable_thinking';
  return '';
}

/** Models that take `max_completion_tokens` whatever the provider (GPT-5, o-series, Kimi K3). */
function requiresMaxCompletionTokens(model: string): boolean {
  const slug = slugOf(model);
  return slug === KIMI_K3 || slug.includes('gpt-5') || ['o1', 'o3', 'o4'].some((p) => slug === p || slug.startsWith(`${p}-`) || slug.startsWith(`${p}.`));
}

/** Whether the model takes a temperature with this effort (GPT-5 and o-series never; Kimi K3 has a fixed one). */
function supportsTemperature(model: string, effort: string | null | undefined): boolean {
  if (slugOf(model) === KIMI_K3) return false;
  if (typeof effort === 'string' && effort !== '' && effort.toLowerCase() !== 'none') return false;
  const name = model.toLowerCase();
  return !['gpt-5', 'o1', 'o3', 'o4'].some((token) => name.includes(token));
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
 * as the reference's OpenAI-compatible provider applies its spec (`_build_kwargs`):
 * - no `temperature` where the model refuses one (GPT-5 and o-series, Kimi K3, any reasoning
 *   effort but "none"; Moonshot's K2.5/K2.6 pick theirs from the thinking mode);
 * - `max_completion_tokens` instead of `max_tokens` where the spec or the model says so;
 * - per-model overrides (`kimi-k2.7` → `temperature: 1`), the first pattern in the model name;
 * - `reasoning_effort` in the provider's vocabulary: Mistral's remap (`low` → `none`), none for
 *   models that always reason (Magistral), DashScope's `minimum`, Kimi K3's `max`;
 * - when an effort is given, the thinking switch of the provider's style and of the model's own
 *   (Kimi, MiMo, Qwen: `thinking: { type }`, `enable_thinking`), never switching off a model that
 *   always thinks, without `reasoning_effort` for Kimi's thinking models (Moonshot refuses both);
 *   and through a gateway that speaks it (OpenRouter) `reasoning: { effort }` for those models;
 * - `reasoning_content: ""` on assistant turns without one while thinking is on, and always for
 *   DeepSeek V4 / reasoner (DeepSeek's thinking mode rejects the history otherwise);
 * - string-only content for DeepSeek's text models.
 * `effort` is the request's `reasoningEffort`. Pure.
 */
export function applySpecQuirks(params: Record<string, unknown>, spec: ProviderSpec, model: string, effort: string | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  const modelLower = model.toLowerCase();
  const slug = slugOf(model);
  if (!supportsTemperature(model, effort)) delete out.temperature;
  if ((spec.supportsMaxCompletionTokens || requiresMaxCompletionTokens(model)) && out.max_tokens !== undefined) {
    out.max_completion_tokens = out.max_tokens;
    delete out.max_tokens;
  }
  const override = spec.modelOverrides.find(([pattern]) => modelLower.includes(pattern));
  if (override) Object.assign(out, override[1]);
  if (spec.name === 'moonshot' && KIMI_SERVER_MANAGED_TEMPERATURE.has(slug)) delete out.temperature;

  let semantic: string | undefined;
  if (typeof effort === 'string') {
    semantic = effort.toLowerCase();
    if (semantic === 'minimum') semantic = 'minimal';
  }
  let wire: string | undefined = typeof effort === 'string' ? effort : undefined;
  if (slug === KIMI_K3 && semantic !== undefined) {
    if (semantic === 'none' || semantic === 'minimal') wire = undefined;
    else semantic = wire = 'max';
  }
  // DashScope accepts none/minimum/low/medium/high/xhigh; "minimal" is refused.
  if (spec.name === 'dashscope' && semantic === 'minimal') wire = 'minimum';
  const implicit = spec.implicitReasoningModels.some((pattern) => modelLower.includes(pattern));
  const remap = !implicit && semantic !== undefined ? spec.reasoningEffortRemap.find(([from]) => from === semantic) : undefined;
  if (remap) {
    wire = remap[1] || undefined;
    semantic = remap[1] || 'none';
  }
  delete out.reasoning_effort;
  if (!implicit && wire && semantic !== 'none') out.reasoning_effort = wire;

  const modelStyle = modelThinkingStyle(model);
  if (typeof effort === 'string') {
    const enabled = semantic !== 'none' && semantic !== 'minimal';
    const styles = [...new Set([spec.thinkingStyle, modelStyle].filter((style) => style !== ''))];
    for (const style of styles) {
      if (!enabled && KIMI_ALWAYS_THINKING_MODELS.has(slug)) continue;
      Object.assign(out, thinkingFields(style, enabled));
    }
    if (spec.gatewayReasoningStyle === 'reasoning_effort' && modelStyle !== '' && (enabled || !KIMI_ALWAYS_THINKING_MODELS.has(slug)) && semantic) {
      out.reasoning = { effort: semantic };
    }
    if (KIMI_THINKING_MODELS.has(slug)) delete out.reasoning_effort;
  }

  const explicitThinking = typeof effort === 'string' && semantic !== 'none' && semantic !== 'minimal' && (spec.thinkingStyle !== '' || modelStyle !== '');
  const deepseekThinking = spec.name === 'deepseek' && semantic !== 'none' && semantic !== 'minimal' && (modelLower.includes('deepseek-v4') || modelLower.includes('deepseek-reasoner'));
  if ((explicitThinking || deepseekThinking) && Array.isArray(out.messages)) {
    out.messages = (out.messages as Message[]).map((m) => (m.role === 'assistant' && !('reasoning_content' in m) ? { ...m, reasoning_content: '' } : m));
  }

  if (spec.name === 'deepseek' && !DEEPSEEK_MULTIMODAL_MODELS.has(slug) && Array.isArray(out.messages)) {
    out.messages = (out.messages as Message[]).map((m) => (Array.isArray(m.content) && !(m.role === 'assistant' && m.tool_calls) ? { ...m, content: textOf(m.content) } : m));
  }
  return out;
}
