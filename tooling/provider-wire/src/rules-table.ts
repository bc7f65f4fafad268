// The README's table of rules, rendered from the rules themselves (one row per rule: its id,
// the provider's wording, its source), so the documentation cannot drift from what the servers
// enforce; a test compares it with README.md.
import { ANTHROPIC_BODY_FIELD_RULES, ANTHROPIC_RULES } from './anthropic/anthropic-rules.js';
import { BEDROCK_RULES } from './bedrock/bedrock-rules.js';
import type { WireRule } from './core/wire-rule.js';
import { GEMINI_RULES } from './gemini/gemini-rules.js';
import { DEEPSEEK_RULES } from './openai-chat/deepseek-rules.js';
import { GEMINI_OPENAI_RULES } from './openai-chat/gemini-openai-rules.js';
import { MISTRAL_RULES } from './openai-chat/mistral-rules.js';
import { OPENAI_CHAT_RULES } from './openai-chat/openai-chat-rules.js';
import { OPENROUTER_RULES } from './openai-chat/openrouter-rules.js';
import { RESPONSES_RULES } from './responses/responses-rules.js';

/** Every rule of every wire format, grouped as the README lists them. */
export const RULE_GROUPS: readonly { title: string; rules: readonly WireRule<never>[] }[] = [
  { title: 'OpenAI Chat Completions (and every vendor on its wire: Azure, Mistral, DeepSeek, OpenRouter, Gemini OpenAI-compatible)', rules: OPENAI_CHAT_RULES },
  { title: 'Mistral (chat completions)', rules: MISTRAL_RULES },
  { title: 'DeepSeek (chat completions, thinking mode)', rules: DEEPSEEK_RULES },
  { title: 'OpenRouter (chat completions)', rules: OPENROUTER_RULES },
  { title: 'Gemini OpenAI-compatible endpoint', rules: GEMINI_OPENAI_RULES },
  { title: 'OpenAI Responses', rules: RESPONSES_RULES },
  { title: 'Anthropic Messages', rules: [...ANTHROPIC_BODY_FIELD_RULES, ...ANTHROPIC_RULES] as readonly WireRule<never>[] },
  { title: 'Gemini generateContent', rules: GEMINI_RULES },
  { title: 'Amazon Bedrock Converse', rules: BEDROCK_RULES },
];

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown of every group's table. */
export function rulesTable(): string {
  return RULE_GROUPS.map((g) => [`### ${g.title}`, '', '| rule | the provider\'s wording | source |', '| --- | --- | --- |', ...g.rules.map((r) => `| \`${r.id}\` | ${cell(r.wording)} | <${r.source}> |`)].join('\n')).join('\n\n');
}
