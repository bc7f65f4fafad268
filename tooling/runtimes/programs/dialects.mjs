// The dialect smoke test, as it runs inside each runtime: a few recorded sessions in each
// library's own format governed at 8k and 32k through `@nanobot/ai-sdk` (governModelMessages),
// `@nanobot/langchain` (governBaseMessages) and the governor's `/anthropic` and `/responses`
// subpaths. Input: the sessions as JSON text. Output: one line per case (programs/encode.mjs).
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { governModelMessages } from '@nanobot/ai-sdk';
import { governAnthropic } from '@nanobot/governor/anthropic';
import { governResponses } from '@nanobot/governor/responses';
import { governBaseMessages } from '@nanobot/langchain';
import { loadTokenizer } from '@nanobot/schema';
import { baseMessageView, toAnthropic, toBaseMessages, toModelMessages, toResponsesItems } from './dialect-inputs.mjs';
import { capture, resultsText, revive } from './encode.mjs';

const lc = { AIMessage, HumanMessage, SystemMessage, ToolMessage };

/**
 * Budgets of the smoke test: a model from the table with a small window, and the default count
 * (both count with cl100k ranks; the conformance program covers o200k, whose ranks take seconds
 * to load in each runtime).
 */
export const DIALECT_CONFIGS = {
  '8k claude-sonnet-4-5': { model: 'claude-sonnet-4-5', contextWindowTokens: 8_000, maxOutputTokens: 1_024, maxToolResultChars: 2_000 },
  '32k default count': { contextWindowTokens: 32_000, maxOutputTokens: 4_096, maxToolResultChars: 4_000 },
};

/** Runs the smoke test on `inputText` (`{ sessions: [{ name, messages }] }`). */
export async function run(inputText) {
  const input = JSON.parse(inputText, revive);
  // Both configurations count in cl100k (Claude: cl100k × 1.2); see the conformance program.
  await loadTokenizer('cl100k_base');
  const results = [];
  for (const s of input.sessions) {
    for (const [label, config] of Object.entries(DIALECT_CONFIGS)) {
      const id = `${s.name} @ ${label}`;
      results.push({ id: `ai-sdk governModelMessages ${id}`, out: capture(() => governModelMessages(/** @type {any} */ (toModelMessages(s.messages)), config)) });
      results.push({
        id: `langchain governBaseMessages ${id}`,
        out: capture(() => {
          const r = governBaseMessages(toBaseMessages(s.messages, lc), config);
          return { messages: r.messages.map(baseMessageView), report: r.report };
        }),
      });
      results.push({ id: `governor/anthropic governAnthropic ${id}`, out: capture(() => governAnthropic(/** @type {any} */ (toAnthropic(s.messages)), config)) });
      results.push({ id: `governor/responses governResponses ${id}`, out: capture(() => governResponses(/** @type {any} */ (toResponsesItems(s.messages)), config)) });
    }
  }
  return { text: resultsText(results), probe: {} };
}
