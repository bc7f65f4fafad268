/**
 * The API a governed copy is sent to; each has a declared profile (its rules, their sources and
 * what the governor does about them) in `profiles/`. `'openai'`: Chat Completions (`developer`
 * kept, system messages anywhere). `'anthropic'`: the Messages API on the copy's thin projection
 * (leading instructions become the `system` parameter, `tool` messages `tool_result` blocks of a
 * user turn): instructions only at the head, strict alternation, no blank text. `'gemini'`:
 * generateContent (as `@ai-sdk/google` or the OpenAI-compatible endpoint send it). `'bedrock'`:
 * Converse. `'mistral'`, `'deepseek'`, `'openrouter'`: their OpenAI-shaped chat APIs.
 * `'responses'`: the OpenAI Responses API. `'any'`: OpenAI chat and Anthropic at once (the
 * default of {@link govern}).
 */
export type GovernTarget = 'openai' | 'responses' | 'anthropic' | 'gemini' | 'bedrock' | 'mistral' | 'deepseek' | 'openrouter' | 'any';

/** The targets {@link govern} and {@link checkLegality} accept. */
export const GOVERN_TARGETS: readonly GovernTarget[] = Object.freeze(['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'mistral', 'deepseek', 'openrouter', 'any']);

/** Whether a role carries instructions (`system`, or `developer`, OpenAI's newer name for it). */
export function isInstructionRole(role: unknown): boolean {
  return role === 'system' || role === 'developer';
}
