// @nanobot-internal/provider-wire: local stand-ins for model providers' HTTP APIs that speak each
// wire format and reject what the real API rejects, with every rule as data.
export type { WireFormat, WireRule, WireViolation, RuleFinding, Json } from './core/wire-rule.js';
export { runRules } from './core/wire-rule.js';
export { WireServer, sendJson } from './core/wire-server.js';
export type { WireRequest, WireRoute, RawHandler, QueuedReply } from './core/wire-server.js';
export type { ScriptedReply, ScriptedToolCall } from './core/scripted-reply.js';
export { DEFAULT_REPLY, estimateTokens } from './core/scripted-reply.js';
export { wireSignature, verifyWireSignature, canonicalJson } from './core/signatures.js';
export type { SignatureKind } from './core/signatures.js';
export { GEMINI_SIGNATURE_PLACEHOLDERS, geminiCallSignature, geminiTextSignature } from './core/gemini-signature.js';

export { BEDROCK_RULES } from './bedrock/bedrock-rules.js';
export { checkBedrockConverse, startBedrockServer, sendBedrockError } from './bedrock/bedrock-server.js';
export { encodeEvent, encodeException, decodeEvents } from './bedrock/event-stream.js';

export { OPENAI_CHAT_RULES } from './openai-chat/openai-chat-rules.js';
export { MISTRAL_RULES } from './openai-chat/mistral-rules.js';
export { DEEPSEEK_RULES, deepseekThinking } from './openai-chat/deepseek-rules.js';
export { OPENROUTER_RULES, openRouterTextSignature, openRouterEncryptedData } from './openai-chat/openrouter-rules.js';
export { GEMINI_OPENAI_RULES } from './openai-chat/gemini-openai-rules.js';
export { checkOpenAIChat, chatRules, CHAT_VENDORS } from './openai-chat/check-openai-chat.js';
export type { ChatVendor } from './openai-chat/check-openai-chat.js';
export { startOpenAIChatServer, chatErrorBody } from './openai-chat/openai-chat-server.js';
export type { OpenAIChatServerOptions, ListedModel } from './openai-chat/openai-chat-server.js';

export { ANTHROPIC_RULES, ANTHROPIC_BODY_FIELD_RULES, cacheControlPaths, anthropicBlocks, anthropicCompactionContent } from './anthropic/anthropic-rules.js';
export type { AnthropicCheckContext } from './anthropic/anthropic-rules.js';
export { checkAnthropicMessages } from './anthropic/check-anthropic.js';
export type { CheckAnthropicOptions } from './anthropic/check-anthropic.js';
export { startAnthropicServer, sendAnthropicError } from './anthropic/anthropic-server.js';
export type { AnthropicListedModel } from './anthropic/anthropic-server.js';

export { RESPONSES_RULES, responsesItems } from './responses/responses-rules.js';
export { checkResponses, startResponsesServer, responsesEncryptedContent, responsesCompactionContent } from './responses/responses-server.js';

export { GEMINI_RULES, geminiContents, currentTurnStart } from './gemini/gemini-rules.js';
export { checkGemini, startGeminiServer, sendGeminiError } from './gemini/gemini-server.js';
export type { GeminiListedModel } from './gemini/gemini-server.js';
export { RULE_GROUPS, rulesTable } from './rules-table.js';
