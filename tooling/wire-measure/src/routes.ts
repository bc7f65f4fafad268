// The ways a governed request reaches a provider in the measurement: through the real AI SDK
// provider packages (governed with @nanobot/ai-sdk's governModelMessages) and through our
// OpenAI-compatible provider (governed with the governor's govern), each to its local stand-in.
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, tool } from 'ai';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import type { GovernTarget } from '@nanobot/governor';
import type { Message, ToolDefinition } from '@nanobot/schema';
import { OpenAICompatProvider } from '@nanobot/providers/openai';
import { findProviderSpec } from '@nanobot/providers';
import { startAnthropicServer, startBedrockServer, startGeminiServer, startOpenAIChatServer, startResponsesServer } from '@nanobot-internal/provider-wire';
import type { ChatVendor, WireServer } from '@nanobot-internal/provider-wire';

/** How a route's request is governed and sent. */
export type RoutePath = 'ai-sdk' | 'openai-compatible';

/** What one route needs to send a governed request. */
export interface SendInput {
  modelMessages: readonly ModelMessage[];
  messages: readonly Message[];
  toolNames: readonly string[];
}

/** One route: a provider family reached one way, with the model it asks for. */
export interface Route {
  /** `<path>:<provider>[:<model note>]`, e.g. `ai-sdk:mistral`. */
  id: string;
  /** The provider family whose rules apply (for grouping the report). */
  provider: string;
  path: RoutePath;
  model: string;
  /** The governor target for this provider (what `target: 'route'` governs with). */
  target: GovernTarget;
  /** Starts the route's own server (one per route, so each request is attributed). */
  start(): Promise<WireServer>;
  /** Sends one request; rejects when the client or the server refuses it. */
  send(server: WireServer, input: SendInput): Promise<void>;
}

function aiTools(names: readonly string[]): ToolSet {
  return Object.fromEntries(names.map((n) => [n, tool({ inputSchema: jsonSchema({ type: 'object', additionalProperties: true }) })]));
}

/** Tool definitions in our (OpenAI) shape for the tools a history uses. */
export function toolDefinitions(names: readonly string[]): ToolDefinition[] {
  return names.map((name) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: { type: 'object', properties: {}, additionalProperties: true } } }));
}

function aiRoute(provider: string, target: GovernTarget, model: string, start: () => Promise<WireServer>, make: (url: string) => LanguageModel, note = ''): Route {
  return {
    id: `ai-sdk:${provider}${note ? `:${note}` : ''}`,
    provider,
    path: 'ai-sdk',
    model,
    target,
    start,
    async send(server, input) {
      // Stored histories carry their system prompt as a message (allowed: that is how they were stored).
      await generateText({ model: make(server.url), messages: input.modelMessages as ModelMessage[], allowSystemInMessages: true, tools: aiTools(input.toolNames), maxRetries: 0 });
    },
  };
}

function compatRoute(provider: string, vendor: ChatVendor, target: GovernTarget, model: string, base: string, note = ''): Route {
  const specName = vendor === 'gemini-openai' ? 'gemini' : vendor;
  const providers = new Map<string, OpenAICompatProvider>();
  return {
    id: `openai-compatible:${provider}${note ? `:${note}` : ''}`,
    provider,
    path: 'openai-compatible',
    model,
    target,
    start: () => startOpenAIChatServer({ vendor }),
    async send(server, input) {
      let p = providers.get(server.url);
      if (!p) {
        // With the registry spec, as createProvider builds it (its message fields and quirks).
        p = new OpenAICompatProvider({ baseUrl: `${server.url}${base}`, apiKey: 'local-key', model, retry: { maxAttempts: 1 }, stripImagesOnReject: false, name: provider, spec: findProviderSpec(specName) });
        providers.set(server.url, p);
      }
      await p.chat({ messages: input.messages, tools: toolDefinitions(input.toolNames), model });
    },
  };
}

const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The routes issue 25 measures (AI SDK packages, and our OpenAI-compatible provider). */
export function measurementRoutes(): Route[] {
  return [
    aiRoute('openai', 'openai', 'gpt-4.1', () => startOpenAIChatServer({ vendor: 'openai' }), (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k' }).chat('gpt-4.1'), 'chat'),
    aiRoute('openai-responses', 'responses', 'gpt-5', () => startResponsesServer(), (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k' }).responses('gpt-5')),
    aiRoute('anthropic', 'anthropic', 'claude-sonnet-4-5-20250929', () => startAnthropicServer(), (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: 'k' })('claude-sonnet-4-5-20250929')),
    aiRoute('gemini', 'gemini', 'gemini-3-pro-preview', () => startGeminiServer(), (url) => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: 'k' })('gemini-3-pro-preview')),
    aiRoute('bedrock', 'bedrock', BEDROCK_MODEL, () => startBedrockServer(), (url) => createAmazonBedrock({ baseURL: url, region: 'us-east-1', accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' })(BEDROCK_MODEL)),
    aiRoute('mistral', 'mistral', 'mistral-large-latest', () => startOpenAIChatServer({ vendor: 'mistral' }), (url) => createMistral({ baseURL: `${url}/v1`, apiKey: 'k' })('mistral-large-latest')),
    aiRoute('deepseek', 'deepseek', 'deepseek-reasoner', () => startOpenAIChatServer({ vendor: 'deepseek' }), (url) => createDeepSeek({ baseURL: url, apiKey: 'k' })('deepseek-reasoner'), 'reasoner'),
    aiRoute('deepseek', 'deepseek', 'deepseek-v4-flash', () => startOpenAIChatServer({ vendor: 'deepseek' }), (url) => createDeepSeek({ baseURL: url, apiKey: 'k' })('deepseek-v4-flash'), 'v4'),
    compatRoute('openai', 'openai', 'openai', 'gpt-4.1', '/v1'),
    compatRoute('mistral', 'mistral', 'mistral', 'mistral-large-latest', '/v1'),
    compatRoute('deepseek', 'deepseek', 'deepseek', 'deepseek-reasoner', '', 'reasoner'),
    compatRoute('deepseek', 'deepseek', 'deepseek', 'deepseek-v4-flash', '', 'v4'),
    compatRoute('openrouter', 'openrouter', 'openrouter', 'google/gemini-3-pro-preview', '/api/v1', 'gemini-3'),
    compatRoute('openrouter', 'openrouter', 'openrouter', 'anthropic/claude-sonnet-4.5:thinking', '/api/v1', 'claude-thinking'),
    compatRoute('gemini-openai', 'gemini-openai', 'gemini', 'gemini-3-pro-preview', '/v1beta/openai'),
  ];
}
