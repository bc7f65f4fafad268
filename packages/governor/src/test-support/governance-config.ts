// Maps a reference governance `config` (conformance fixtures) to our options.
import { toolTraitsTable } from '@nanobot/schema';
import { COMPACTABLE_TOOLS } from '../constants.js';
import type { GovernOptions } from '../govern.js';

/**
 * The traits the reference's built-in tools declare here (as @nanobot/tools does): the
 * fixtures' histories come from those tools, so the default mode sees them declared.
 */
export const REFERENCE_BUILTIN_TRAITS = toolTraitsTable([...COMPACTABLE_TOOLS].map((name) => [name, { compactable: true, rereadable: name === 'read_file' }] as const));

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
    toolTraits: REFERENCE_BUILTIN_TRAITS,
  };
}
