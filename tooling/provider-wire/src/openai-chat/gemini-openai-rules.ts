// Gemini's OpenAI-compatible endpoint: thought signatures travel on tool calls as
// `extra_content.google.thought_signature`; the function calls of the current turn must carry
// theirs (the first call of each step), and any signature sent must be the one its call came with.
import { CORRUPTED_SIGNATURE_MESSAGE, missingSignatureMessage, parsedArguments, validatesSignatures, validCallSignature } from '../core/gemini-signature.js';
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { isRec } from '../core/wire-rule.js';
import { chatMessages, lastUserIndex, modelOf, toolCallsOf, toolCallThoughtSignature } from './chat-messages.js';

const SIGNATURES = 'https://ai.google.dev/gemini-api/docs/thought-signatures';

/** Gemini's position of message `i` (1-based among the non-system messages, as its contents count). */
function position(ms: readonly Json[], i: number): number {
  return ms.slice(0, i + 1).filter((m) => m.role !== 'system' && m.role !== 'developer').length;
}

const nameOf = (c: Json): string => (isRec(c.function) ? String(c.function.name) : '');
const argsOf = (c: Json): unknown => parsedArguments(isRec(c.function) ? c.function.arguments : undefined);

/** The rules of Gemini's OpenAI-compatible chat endpoint (on top of the common ones). */
export const GEMINI_OPENAI_RULES: readonly WireRule[] = [
  {
    id: 'gemini-openai/current-turn-signature',
    provider: 'gemini-openai',
    wire: 'openai-chat',
    wording: 'the first function call of each step in the current turn carries its `extra_content.google.thought_signature` (Gemini 3; a placeholder where it is not available)',
    source: SIGNATURES,
    check(body): RuleFinding[] {
      if (!validatesSignatures(modelOf(body))) return [];
      const ms = chatMessages(body);
      const out: RuleFinding[] = [];
      for (let i = lastUserIndex(ms) + 1; i < ms.length; i++) {
        const first = toolCallsOf(ms[i])[0];
        if (ms[i].role === 'assistant' && first && toolCallThoughtSignature(first) === undefined) {
          out.push({ path: `messages[${i}].tool_calls[0].extra_content.google.thought_signature`, message: missingSignatureMessage(nameOf(first), position(ms, i)) });
        }
      }
      return out;
    },
  },
  {
    id: 'gemini-openai/signature-byte-exact',
    provider: 'gemini-openai',
    wire: 'openai-chat',
    wording: 'a thought signature comes back unchanged on the call it came with (never invented, never moved)',
    source: SIGNATURES,
    check(body): RuleFinding[] {
      const ms = chatMessages(body);
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => toolCallsOf(m).forEach((c, j) => {
        const sig = toolCallThoughtSignature(c);
        if (sig !== undefined && !validCallSignature(nameOf(c), argsOf(c), sig)) out.push({ path: `messages[${i}].tool_calls[${j}].extra_content.google.thought_signature`, message: CORRUPTED_SIGNATURE_MESSAGE });
      }));
      return out;
    },
  },
];
