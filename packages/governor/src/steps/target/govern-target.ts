/**
 * The API a governed copy is sent to. `'openai'`: Chat Completions rules (`developer` kept,
 * system messages anywhere). `'anthropic'`: Messages API rules on the copy's thin projection
 * (leading instructions become the `system` parameter, `tool` messages `tool_result` blocks of a
 * user turn): instructions only at the head, strict alternation, no blank text. `'any'`: both
 * at once (the default of {@link govern}).
 */
export type GovernTarget = 'openai' | 'anthropic' | 'any';

/** The targets {@link govern} and {@link checkLegality} accept. */
export const GOVERN_TARGETS: readonly GovernTarget[] = ['openai', 'anthropic', 'any'];

/** Whether a role carries instructions (`system`, or `developer`, OpenAI's newer name for it). */
export function isInstructionRole(role: unknown): boolean {
  return role === 'system' || role === 'developer';
}
