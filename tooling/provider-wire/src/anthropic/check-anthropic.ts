// The checker for Messages API bodies (and for a bare `messages` list).
import type { Json, WireViolation } from '../core/wire-rule.js';
import { runRules } from '../core/wire-rule.js';
import type { AnthropicCheckContext } from './anthropic-rules.js';
import { ANTHROPIC_BODY_FIELD_RULES, ANTHROPIC_RULES } from './anthropic-rules.js';

/** Options of {@link checkAnthropicMessages}. */
export interface CheckAnthropicOptions extends Partial<AnthropicCheckContext> {
  /** Also require `model` and `max_tokens` (a whole request body; default true). */
  wholeBody?: boolean;
  /** Also apply the prompt-caching rules (default true; a history's own markers are not the governor's business). */
  caching?: boolean;
}

const CACHING_RULES = new Set(['anthropic/cache-control', 'anthropic/cache-breakpoints-max-4']);

/**
 * Every rule a Messages API body breaks. With `wholeBody: false` only the body's messages,
 * `system` and `tools` are judged (a governed copy before it becomes a request).
 */
export function checkAnthropicMessages(body: Json, options: CheckAnthropicOptions = {}): WireViolation[] {
  const ctx: AnthropicCheckContext = { verifySignatures: options.verifySignatures ?? true, strictLastTurn: options.strictLastTurn ?? false };
  const rules = options.caching === false ? ANTHROPIC_RULES.filter((r) => !CACHING_RULES.has(r.id)) : ANTHROPIC_RULES;
  return [...(options.wholeBody === false ? [] : runRules(ANTHROPIC_BODY_FIELD_RULES, body, ctx)), ...runRules(rules, body, ctx)];
}
