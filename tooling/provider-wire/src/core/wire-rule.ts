// A provider's rule as data: which wire format, the provider's own wording with its link, and a
// pure check over a request body. Servers answer the first violation with the provider's real
// error; tests and the measurement harness read every violation.

/** The wire formats this package speaks. */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'bedrock-converse';

/** A JSON object as parsed from a request body. */
export type Json = Record<string, unknown>;

/** One place where a body breaks a rule; `message` is the text the provider's error carries. */
export interface WireViolation {
  /** The id of the broken {@link WireRule}. */
  rule: string;
  /** Where in the body (`messages.3.content.0`). */
  path: string;
  /** The provider's error message for this case (its wording, with this body's indices and ids). */
  message: string;
  /** The provider's error type for this case where it has several (Mistral `invalid_function_call`, …). */
  type?: string;
  /** The provider's error code for this case where it sends one (Mistral `3280`, OpenAI `empty_array`, …). */
  code?: string;
}

/** What a rule's check returns: the rule id is added by {@link runRules}. */
export type RuleFinding = Omit<WireViolation, 'rule'>;

/**
 * One documented rule of a provider. Contract: `check` is pure, never throws on malformed input
 * (a body that is not what it expects yields no finding; the shape rules report it), never
 * mutates `body`.
 */
export interface WireRule<C = void> {
  /** Stable id, `<provider>/<rule>`. */
  id: string;
  /** The provider (family or vendor) that enforces it: `bedrock`, `mistral`, `openai`, … */
  provider: string;
  wire: WireFormat;
  /** The provider's documented wording (short quote or paraphrase). */
  wording: string;
  /** Where the provider states it (docs page, or the public issue thread that shows its error). */
  source: string;
  /** The findings for `body` (empty: the rule holds). */
  check(body: Json, context: C): RuleFinding[];
}

/** Runs `rules` over `body` in declaration order (the order a server reports them in). */
export function runRules<C>(rules: readonly WireRule<C>[], body: Json, context: C): WireViolation[] {
  const out: WireViolation[] = [];
  for (const rule of rules) for (const f of rule.check(body, context)) out.push({ rule: rule.id, ...f });
  return out;
}

/** Whether `value` is a plain JSON object. */
export const isRec = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` is not a string with at least one non-whitespace character. */
export const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim().length === 0;

/** `value` as an array of JSON objects (non-objects dropped; not an array: empty). */
export const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRec) : []);
