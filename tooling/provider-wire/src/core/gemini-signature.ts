// Gemini thought signatures: bound (in these stand-ins) to the function call they came with, and
// Google's documented placeholders for a current-turn call that has none.
import { canonicalJson, verifyWireSignature, wireSignature } from './signatures.js';

/**
 * The values Google documents for a function call of the current turn whose signature is not
 * available (a history from another model): "context_engineering_is_the_way_to_go" or
 * "skip_thought_signature_validator".
 */
export const GEMINI_SIGNATURE_PLACEHOLDERS: readonly string[] = ['context_engineering_is_the_way_to_go', 'skip_thought_signature_validator'];

/** What a thought signature on a function call is bound to: its name and arguments. */
export function functionCallSignatureContent(name: string, args: unknown): string {
  return `${name}:${canonicalJson(args ?? {})}`;
}

/** The signature a local Gemini server gives the function call `name(args)`. */
export function geminiCallSignature(name: string, args: unknown): string {
  return wireSignature('gemini-thought', functionCallSignatureContent(name, args));
}

/** The signature a local Gemini server gives a text or thought part. */
export function geminiTextSignature(text: string): string {
  return wireSignature('gemini-thought', `text:${text}`);
}

/** Whether `signature` is a placeholder or the one this call came with. */
export function validCallSignature(name: string, args: unknown, signature: unknown): boolean {
  return (typeof signature === 'string' && GEMINI_SIGNATURE_PLACEHOLDERS.includes(signature)) || verifyWireSignature('gemini-thought', functionCallSignatureContent(name, args), signature);
}

/** Parses OpenAI-style JSON arguments (the raw string when they are not JSON). */
export function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** Google's error for a current-turn function call sent without its signature. */
export function missingSignatureMessage(name: string, position: number): string {
  return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
}

/** Google's error for a signature that is not the one its part came with. */
export const CORRUPTED_SIGNATURE_MESSAGE = 'Corrupted thought signature.';

/** Gemini 3 (and later) models validate thought signatures; earlier ones do not. */
export const validatesSignatures = (model: string): boolean => /gemini-([3-9]|\d\d)/.test(model);
