/**
 * The governor target a provider's requests must be legal for (issue "Every provider's rules"):
 * the runner passes the resolved provider's target to the governor. `'any'` is legal for OpenAI
 * chat and Anthropic at once.
 */
export type GovernorTarget = 'openai' | 'responses' | 'anthropic' | 'gemini' | 'bedrock' | 'mistral' | 'deepseek' | 'openrouter' | 'any';

/**
 * Which implementation talks to a provider: the reference's backends, plus `openai_responses`
 * (OpenAI's Responses API, chosen with the name `openai-responses`). `openai_codex`, `xai_grok`
 * and `github_copilot` sign in with OAuth and are listed but refused here.
 */
export type ProviderBackend = 'openai_compat' | 'openai_responses' | 'anthropic' | 'azure_openai' | 'bedrock' | 'openai_codex' | 'xai_grok' | 'github_copilot';

/** How a provider turns thinking on or off in the request body (`''`: it needs nothing). */
export type ThinkingStyle = '' | 'thinking_type' | 'enable_thinking' | 'reasoning_split';

/**
 * Where a provider publishes its models' window and largest reply (`LLMProvider.modelLimits`):
 * Anthropic's `/v1/models/{id}`, an OpenAI-compatible `/models` list whose entries carry them
 * (OpenRouter, Mistral, Groq, vLLM), Gemini's native `models.get`; `''`: nowhere.
 */
export type ModelLimitsSource = '' | 'anthropic' | 'models_list' | 'gemini';

/** A curated model of a provider without a model-list endpoint. */
export interface ProviderModelSpec {
  id: string;
  label: string;
  description: string;
  contextWindow?: number;
}

/**
 * One provider's metadata: the reference's `ProviderSpec` field for field (camelCase), plus the
 * governor target. Specs are plain frozen data; every rule that reads them is a pure function.
 */
export interface ProviderSpec {
  /** Config key and registry name, e.g. `dashscope` (snake_case). */
  readonly name: string;
  /** Lower-case model-name keywords that select this provider, in priority order. */
  readonly keywords: readonly string[];
  /** The environment variable holding its API key (`''`: none). */
  readonly envKey: string;
  /**
   * Whether `envKey` configures this provider. False where the reference names another
   * vendor's variable (six gateways list `OPENAI_API_KEY`, a leftover of its LiteLLM days):
   * an OpenAI key set for OpenAI must never be sent to AiHubMix or VolcEngine.
   */
  readonly envKeyConfigures: boolean;
  readonly displayName: string;
  /** Where the reference's web UI lists models from (`auto`, `official`, `builtin`). */
  readonly modelCatalog: string;
  readonly builtinModels: readonly ProviderModelSpec[];
  /** A compatibility alias grouped under this provider (`opencode_zen` → `opencode`). */
  readonly settingsAliasFor: string;
  readonly backend: ProviderBackend;
  /** Environment variables the integration derives from the key (`{api_key}`, `{api_base}` placeholders). */
  readonly envExtras: readonly (readonly [string, string])[];
  /** Headers sent on every request unless the user's `extraHeaders` replace them. */
  readonly defaultExtraHeaders: readonly (readonly [string, string])[];
  /** Routes any model (OpenRouter, AiHubMix): wins the fallback over direct providers. */
  readonly isGateway: boolean;
  /** A local server (vLLM, Ollama): needs a base URL, no key. */
  readonly isLocal: boolean;
  /** An API key starting with this belongs to this provider (`sk-or-` → OpenRouter). */
  readonly detectByKeyPrefix: string;
  /** A base URL containing this belongs to this provider (`11434` → Ollama). */
  readonly detectByBaseKeyword: string;
  /** The OpenAI-compatible (or Anthropic) endpoint used when none is configured. */
  readonly defaultApiBase: string;
  /** Send only the last `/` segment of the model name (`anthropic/claude-3` → `claude-3`). */
  readonly stripModelPrefix: boolean;
  /** Strip the first segment only when it is one of these (`opencode/x` → `x`). */
  readonly stripModelPrefixes: readonly string[];
  /** Send `max_completion_tokens` instead of `max_tokens`. */
  readonly supportsMaxCompletionTokens: boolean;
  /** Per-model request fields: the first pattern found in the model name wins. */
  readonly modelOverrides: readonly (readonly [string, Readonly<Record<string, unknown>>])[];
  /** Signs in with OAuth, not an API key (refused by this package, which has no OAuth flow). */
  readonly isOauth: boolean;
  /** The user supplies everything (endpoint, credentials); no key check. */
  readonly isDirect: boolean;
  /** Listed for its credentials (voice transcription) but serves no chat model. */
  readonly isTranscriptionOnly: boolean;
  /** Accepts `cache_control` on content blocks (Claude behind it). */
  readonly supportsPromptCaching: boolean;
  readonly thinkingStyle: ThinkingStyle;
  /** `reasoning_effort` → `{ reasoning: { effort } }` (OpenRouter). */
  readonly gatewayReasoningStyle: '' | 'reasoning_effort';
  /** The answer arrives in `reasoning` when `content` is empty (StepFun). */
  readonly reasoningAsContent: boolean;
  /** `reasoning_effort` values mapped to what the provider accepts (`''`: omit the field). */
  readonly reasoningEffortRemap: readonly (readonly [string, string])[];
  /** Models that always reason and reject `reasoning_effort` (Magistral). */
  readonly implicitReasoningModels: readonly string[];
  /** Models served over the Responses wire format. */
  readonly responsesModels: readonly string[];
  /** Hosted Responses tools sent by default. */
  readonly responsesDefaultTools: readonly string[];
  /** Thinking blocks in a content list are read into `reasoning_content` (Mistral). */
  readonly extractThinkingBlocks: boolean;
  /** Never send `reasoning_content` back (Mistral rejects unknown fields). */
  readonly stripHistoryReasoningContent: boolean;
  /** The governor target this provider's requests must be legal for. */
  readonly governorTarget: GovernorTarget;
  /** Where the provider publishes its models' limits (not a field of the reference's spec). */
  readonly modelLimitsSource: ModelLimitsSource;
}

/** The fields a spec entry states; everything else takes `SPEC_DEFAULTS`. */
export type ProviderSpecInit = Partial<ProviderSpec> & Pick<ProviderSpec, 'name' | 'keywords' | 'envKey' | 'displayName' | 'governorTarget'>;

/** The defaults of every field, as the reference's dataclass declares them. */
export const SPEC_DEFAULTS: Omit<ProviderSpec, 'name' | 'keywords' | 'envKey' | 'displayName' | 'governorTarget'> = {
  envKeyConfigures: true,
  modelCatalog: 'auto',
  builtinModels: [],
  settingsAliasFor: '',
  backend: 'openai_compat',
  envExtras: [],
  defaultExtraHeaders: [],
  isGateway: false,
  isLocal: false,
  detectByKeyPrefix: '',
  detectByBaseKeyword: '',
  defaultApiBase: '',
  stripModelPrefix: false,
  stripModelPrefixes: [],
  supportsMaxCompletionTokens: false,
  modelOverrides: [],
  isOauth: false,
  isDirect: false,
  isTranscriptionOnly: false,
  supportsPromptCaching: false,
  thinkingStyle: '',
  gatewayReasoningStyle: '',
  reasoningAsContent: false,
  reasoningEffortRemap: [],
  implicitReasoningModels: [],
  responsesModels: [],
  responsesDefaultTools: [],
  extractThinkingBlocks: false,
  stripHistoryReasoningContent: false,
  modelLimitsSource: '',
};

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A complete, frozen spec from the fields an entry states. Pure. */
export function defineProviderSpec(init: ProviderSpecInit): ProviderSpec {
  return deepFreeze({ ...SPEC_DEFAULTS, ...init });
}

/** Python's `str.title()` for ASCII names: a letter after a non-letter upper-cased, the others lower-cased. Pure. */
export function titleCase(text: string): string {
  let out = '';
  let previousIsLetter = false;
  for (const ch of text) {
    const isLetter = /[A-Za-z]/.test(ch);
    out += isLetter ? (previousIsLetter ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    previousIsLetter = isLetter;
  }
  return out;
}

/** The label shown to people: the display name, or the name title-cased (as the reference). */
export function providerLabel(spec: ProviderSpec): string {
  return spec.displayName || titleCase(spec.name);
}
