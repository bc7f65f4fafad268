// The checker for OpenAI-compatible chat bodies: the common Chat Completions rules plus the
// vendor's own, vendor rules first (a vendor validates its own constraints before the rest).
import type { Json, WireRule, WireViolation } from '../core/wire-rule.js';
import { runRules } from '../core/wire-rule.js';
import { DEEPSEEK_RULES } from './deepseek-rules.js';
import { GEMINI_OPENAI_RULES } from './gemini-openai-rules.js';
import { MISTRAL_RULES } from './mistral-rules.js';
import { OPENAI_CHAT_RULES, type ChatRuleContext } from './openai-chat-rules.js';
import { OPENROUTER_RULES } from './openrouter-rules.js';

/** Who serves the chat-completions wire: OpenAI itself or a vendor speaking it. */
export type ChatVendor = 'openai' | 'azure' | 'mistral' | 'deepseek' | 'openrouter' | 'gemini-openai';

/** Every vendor this package stands in for on the chat-completions wire. */
export const CHAT_VENDORS: readonly ChatVendor[] = ['openai', 'azure', 'mistral', 'deepseek', 'openrouter', 'gemini-openai'];

const VENDOR_RULES: Record<ChatVendor, readonly WireRule<never>[]> = {
  openai: [],
  azure: [],
  mistral: MISTRAL_RULES,
  deepseek: DEEPSEEK_RULES,
  openrouter: OPENROUTER_RULES,
  'gemini-openai': GEMINI_OPENAI_RULES,
};

/** The rules a vendor applies to a chat-completions body, in the order it reports them. */
export function chatRules(vendor: ChatVendor): readonly WireRule<ChatRuleContext>[] {
  return [...(VENDOR_RULES[vendor] as readonly WireRule<ChatRuleContext>[]), ...(OPENAI_CHAT_RULES as readonly WireRule<ChatRuleContext>[])];
}

/** Every rule `body` breaks for `vendor` (default `openai`). */
export function checkOpenAIChat(body: Json, options: { vendor?: ChatVendor } = {}): WireViolation[] {
  const vendor = options.vendor ?? 'openai';
  return runRules(chatRules(vendor), body, { vendor });
}
