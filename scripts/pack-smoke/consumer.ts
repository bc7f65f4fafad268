// A user's program, compiled by scripts/pack-smoke.mjs twice from this one file against the
// packed tarballs: as CommonJS (a package without "type": "module"; module node16, nodenext and
// commonjs) and as an ES module (nodenext and bundler). Both builds run, the CommonJS one on
// Node 20, 22 and 24 with `--no-experimental-require-module` (so nothing may reach an ES module
// through require()), and must print the same line byte for byte. It imports every published
// package and subpath, and does real work with the governor, the tokenizer, the runner and the
// providers. No top-level await: CommonJS has none.
// Usage (after compiling): node consumer.js <transcript.json>
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { governModelMessages } from '@nanobot/ai-sdk';
import { ContextBuilder } from '@nanobot/context-builder';
import { checkLegality, govern, MemoryArtifactStore, type GovernReport, type Message } from '@nanobot/governor';
import { governAnthropic } from '@nanobot/governor/anthropic';
import { governResponses } from '@nanobot/governor/responses';
import { governBaseMessages } from '@nanobot/langchain';
import { McpToolSource } from '@nanobot/mcp';
import { PostgresSessionStore } from '@nanobot/postgres';
import { createProvider, MissingSdkError } from '@nanobot/providers';
import { AnthropicProvider } from '@nanobot/providers/anthropic';
import { OpenAICompatProvider } from '@nanobot/providers/openai';
import { OpenAIResponsesProvider } from '@nanobot/providers/openai-responses';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { createAgent } from '@nanobot/runner';
import { countTokens, countWithEncoding, NanobotError } from '@nanobot/schema';
import { JsonlSessionStore } from '@nanobot/session';
import { createBuiltinTools } from '@nanobot/tools';
import { defineTool, toolResult } from '@nanobot/tools-core';

const sha = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
const summary = (report: GovernReport) => ({
  fits: report.fits,
  before: report.tokensBefore,
  after: report.tokensAfter,
  changed: report.steps.filter((s) => s.changed).map((s) => s.step),
});

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: node consumer.js <transcript.json>');
  const history = JSON.parse(readFileSync(file, 'utf8')) as Message[];

  // The tokenizer's ranks load lazily through the package's own require; a broken load would
  // fall back to counting bytes, so the exact counts are part of the printed line.
  const tokens = { cl100k: countTokens('Hello, governed world!'), o200k: countWithEncoding('o200k_base', 'Hello, governed world!') };
  const governed = govern(history, { target: 'anthropic', contextWindowTokens: 12_000, maxOutputTokens: 1_000, maxToolResultChars: 2_000, artifactStore: new MemoryArtifactStore(), sessionKey: 'smoke' });
  const anthropic = governAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }, { role: 'user', content: 'again' }] });
  const responses = governResponses([{ type: 'message', role: 'user', content: 'hi' }]);

  const echo = defineTool({
    name: 'echo',
    description: 'Echoes its input.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: async ({ text }: { text: string }) => toolResult.text(text),
  });
  const registry = new ToolRegistry();
  registry.register(echo);

  const workspace = mkdtempSync(join(tmpdir(), 'nanobot-smoke-ws-'));
  const sessions = mkdtempSync(join(tmpdir(), 'nanobot-smoke-sessions-'));
  let agentReply: unknown;
  try {
    writeFileSync(join(workspace, 'todo.txt'), 'buy milk\n');
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'read_file', arguments: { path: 'todo.txt' } }] }, 'Your list says: buy milk.']);
    const agent = createAgent({ workspace, provider, sessionsDir: sessions });
    const { reply, result } = await agent.ask('What is on my list?');
    agentReply = { content: reply?.content, tools: result?.toolsUsed };
    await agent.stop();
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(sessions, { recursive: true, force: true });
  }

  // Each provider loads its SDK lazily: through require() in the CommonJS build.
  const providers = await Promise.all((['openai', 'openai-responses', 'anthropic'] as const).map(async (provider) => (await createProvider({ provider, apiKey: 'k', model: 'm' })).name));
  const missingSdk = new MissingSdkError('@anthropic-ai/sdk', 'anthropic');

  const line = {
    tokens,
    govern: { ...summary(governed.report), messages: governed.messages.length, copy: sha(governed.messages), legal: checkLegality(governed.messages, { target: 'anthropic' }) },
    anthropic: { messages: anthropic.messages.length, copy: sha(anthropic.messages) },
    responses: { items: responses.input.length },
    agent: agentReply,
    tools: { registered: registry.has('echo'), builtins: typeof createBuiltinTools },
    providers,
    errors: { code: missingSdk.code, nanobotError: missingSdk instanceof NanobotError, error: missingSdk instanceof Error },
    classes: [ContextBuilder, JsonlSessionStore, McpToolSource, PostgresSessionStore, AnthropicProvider, OpenAICompatProvider, OpenAIResponsesProvider].map((c) => typeof c),
    adapters: [governModelMessages, governBaseMessages].map((f) => typeof f),
  };
  console.log(JSON.stringify(line));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
