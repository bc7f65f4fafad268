// Maps a reference governance `config` (conformance fixtures) to our options.
import type { GovernOptions } from '../govern.js';

const num = (v: unknown): number | null => (v === true ? 1 : v === false ? 0 : typeof v === 'number' ? v : null);

/** Options for {@link govern} and the budget-aware steps from a fixture config. */
export function optionsFromConfig(config: Record<string, any>): GovernOptions {
  return {
    contextWindowTokens: num(config.context_window_tokens),
    contextBlockLimit: num(config.context_block_limit),
    maxOutputTokens: num(config.max_tokens),
    providerMaxTokens: num(config.provider_max_tokens),
    maxToolResultChars: num(config.max_tool_result_chars) ?? 16000,
    inflightStartIndex: num(config.inflight_start_index) ?? 0,
    tools: config.tool_definitions ?? [],
    sessionKey: config.session_key ?? null,
  };
}
