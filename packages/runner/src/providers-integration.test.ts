// The runner with real providers (the official openai SDK against a local server): structured
// output as the turn's final type, provider retries and fallbacks as runner events, usage and
// cost per request and per turn, and OpenTelemetry spans.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { StructuredOutputError, costOfUsage, lookupModel } from '@nanobot/schema';
import type { Message } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { FallbackProvider } from '@nanobot/providers';
import { OpenAICompatProvider } from '@nanobot/providers/openai';
import { ScriptedProvider, scriptedError } from '@nanobot/providers/testing';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';

type Reply = (body: Record<string, unknown>, res: ServerResponse) => void;
let server: Server;
let url: string;
const queue: Reply[] = [];
const bodies: Record<string, unknown>[] = [];

beforeEach(async () => {
  queue.length = 0;
  bodies.length = 0;
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      const reply = queue.shift();
      if (!reply) return json(res, 500, { error: { message: 'no reply queued' } });
      reply(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
const completion = (message: Record<string, unknown>, finish = 'stop', usage = { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 800 } }) => (_b: Record<string, unknown>, res: ServerResponse) =>
  json(res, 200, { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage });

const initial: Message[] = [{ role: 'system', content: 'You are a test agent.' }, { role: 'user', content: 'Weather in Oslo?' }];
const sleeps: number[] = [];
const provider = () => new OpenAICompatProvider({ model: 'gpt-4o', apiKey: 'k', baseUrl: url, retry: { sleep: async (ms) => void sleeps.push(ms) } });

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(defineTool({ name: 'weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, readOnly: true, execute: (a: { city: string }) => `${a.city}: 4°C, rain` }));
  return tools;
}

describe('structured output as the turn\'s final type', () => {
  it('runs the tools, then returns the validated answer as output', async () => {
    queue.push(
      completion({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls'),
      completion({ content: '{"city":"Oslo","celsius":4,"summary":"rain"}' }),
    );
    const result = await new AgentRunner().run({
      initialMessages: initial,
      provider: provider(),
      tools: registry(),
      stream: false,
      tracer: false,
      output: { name: 'weather_report', schema: z.object({ city: z.string(), celsius: z.number(), summary: z.string() }) },
    });
    expect(result.stopReason).toBe('completed');
    expect(result.output).toEqual({ city: 'Oslo', celsius: 4, summary: 'rain' });
    expect(bodies[0].response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather_report', strict: true } });
  });

  it('an answer off the schema ends the run with outputError carrying the raw text', async () => {
    queue.push(completion({ content: 'It is rainy in Oslo.' }));
    const result = await new AgentRunner().run({ initialMessages: initial, provider: provider(), tools: registry(), stream: false, tracer: false, output: { name: 'r', schema: z.object({ city: z.string() }) } });
    expect(result.stopReason).toBe('error');
    expect(result.outputError).toBeInstanceOf(StructuredOutputError);
    expect(result.outputError?.raw).toBe('It is rainy in Oslo.');
    expect(result.output).toBeUndefined();
  });
});

describe('provider retries and fallbacks as runner events', () => {
  it('a 429 wait is a retry event; a failing primary is a fallback event', async () => {
    queue.push((_b, res) => json(res, 429, { error: { message: 'slow down', code: 'rate_limit_exceeded' } }, { 'retry-after': '2' }), completion({ content: 'ok' }));
    const events: RunnerEvent[] = [];
    sleeps.length = 0;
    await new AgentRunner().run({ initialMessages: initial, provider: provider(), tools: registry(), stream: false, tracer: false, events: (e) => void events.push(e) });
    expect(events.filter((e) => e.type === 'retry')).toEqual([expect.objectContaining({ type: 'retry', reason: 'provider', provider: 'openai', attempt: 1, delayMs: 3000, detail: 'rate_limit (429)' })]);
    expect(sleeps).toEqual([3000]);

    const primary = new ScriptedProvider([{ error: scriptedError('server', 'down', { status: 503 }) }], { name: 'primary', model: 'p1' });
    const backup = new ScriptedProvider(['from backup'], { name: 'backup', model: 'b1' });
    const fallbackEvents: RunnerEvent[] = [];
    const result = await new AgentRunner().run({ initialMessages: initial, provider: new FallbackProvider([primary, backup]), tools: registry(), tracer: false, events: (e) => void fallbackEvents.push(e) });
    expect(result.finalContent).toBe('from backup');
    expect(fallbackEvents.filter((e) => e.type === 'fallback')).toEqual([expect.objectContaining({ from: 'primary:p1', to: 'backup:b1', reason: 'server (503)' })]);
  });
});

describe('usage and cost', () => {
  it('each model_end carries its cost from the model table; the turn sums them', async () => {
    queue.push(
      completion({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls'),
      completion({ content: 'Rain.' }, 'stop', { prompt_tokens: 1200, completion_tokens: 10, total_tokens: 1210, prompt_tokens_details: { cached_tokens: 1000 } }),
    );
    const events: RunnerEvent[] = [];
    const result = await new AgentRunner().run({ initialMessages: initial, provider: provider(), tools: registry(), stream: false, tracer: false, events: (e) => void events.push(e) });
    const prices = lookupModel('gpt-4o')!.prices!;
    const ends = events.filter((e): e is Extract<RunnerEvent, { type: 'model_end' }> => e.type === 'model_end');
    expect(ends[0].cost).toEqual(costOfUsage({ inputTokens: 1000, outputTokens: 50, cachedTokens: 800 }, prices));
    expect(ends[0].cost?.cachedInput).toBeCloseTo((800 * 1.25) / 1e6, 12);
    expect(result.usage.cost?.total).toBeCloseTo((ends[0].cost?.total ?? 0) + (ends[1].cost?.total ?? 0), 12);
    expect(result.usage).toMatchObject({ inputTokens: 2200, cachedTokens: 1800, outputTokens: 60, requestCount: 2 });
    const unpriced = await new AgentRunner().run({ initialMessages: initial, provider: new ScriptedProvider(['hi'], { model: 'my-local-llm' }), tools: registry(), tracer: false, pricing: false });
    expect(unpriced.usage.cost).toBeUndefined();
  });
});

describe('OpenTelemetry spans', () => {
  it('one turn span with model, tool and governance spans under it, GenAI attributes set', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    queue.push(
      completion({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls'),
      completion({ content: 'Rain.' }),
    );
    await new AgentRunner().run({ initialMessages: initial, provider: provider(), tools: registry(), stream: false, sessionKey: 'cli:direct', tracer: tracerProvider.getTracer('test') });
    const spans = exporter.getFinishedSpans();
    const turn = spans.find((s) => s.name === 'invoke_agent nanobot')!;
    expect(turn).toBeDefined();
    expect(turn.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'cli:direct', 'gen_ai.provider.name': 'openai', 'nanobot.stop_reason': 'completed' });
    const children = spans.filter((s) => s !== turn);
    expect(children.map((s) => s.name).sort()).toEqual(['chat gpt-4o', 'chat gpt-4o', 'execute_tool weather', 'govern', 'govern']);
    for (const child of children) {
      expect(child.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(turn.spanContext().traceId);
    }
    const chat = children.find((s) => s.name === 'chat gpt-4o')!;
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 50, 'gen_ai.usage.cache_read.input_tokens': 800, 'gen_ai.response.finish_reasons': ['tool_calls'] });
    expect(children.find((s) => s.name === 'execute_tool weather')!.attributes).toMatchObject({ 'gen_ai.tool.name': 'weather', 'gen_ai.tool.call.id': 'c1', 'nanobot.tool.status': 'ok' });
    expect(typeof children.find((s) => s.name === 'govern')!.attributes['nanobot.govern.messagesAfter']).toBe('number');
  });

  it('no span without a registered SDK; the global one once registered', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    await new AgentRunner().run({ initialMessages: initial, provider: new ScriptedProvider(['hi']), tools: registry() });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      await new AgentRunner().run({ initialMessages: initial, provider: new ScriptedProvider(['hi']), tools: registry() });
      expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('invoke_agent nanobot');
    } finally {
      trace.disable();
    }
  });
});

describe('each tool call is prepared once', () => {
  it('the runner hands the registry its prepared call instead of preparing it again', async () => {
    const tools = registry();
    const tool = tools.get('weather')!;
    let casts = 0;
    const cast = tool.castParams.bind(tool);
    Object.assign(tool, { castParams: (params: Record<string, unknown>) => { casts += 1; return cast(params); } });
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'a', name: 'weather', arguments: { city: 'Oslo' } }, { id: 'b', name: 'weather', arguments: { city: 'Bergen' } }] }, 'done']);
    const result = await new AgentRunner().run({ initialMessages: initial, provider, tools, tracer: false });
    expect(result.toolEvents.map((e) => e.status)).toEqual(['ok', 'ok']);
    expect(casts).toBe(2);
  });
});
