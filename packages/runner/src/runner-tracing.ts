import { SpanKind, SpanStatusCode, context as otelContext, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { LLMResponse } from '@nanobot/schema';

const TRACER_NAME = '@nanobot/runner';

/** The tracer a run uses when none is given: the global one (a no-op until an SDK is registered). */
export function defaultTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

function numberAttrs(source: unknown, keys: readonly string[], prefix: string, out: Attributes): void {
  if (typeof source !== 'object' || source === null) return;
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === 'number' || typeof value === 'boolean') out[`${prefix}${key}`] = value;
  }
}

/**
 * The spans of one run, following the OpenTelemetry GenAI conventions: `invoke_agent` for the
 * turn, and under it one `chat {model}` per model call, one `execute_tool {name}` per tool call
 * and one `govern` per governance pass (the report's figures as `nanobot.govern.*`). Parents
 * are passed explicitly, so nesting holds without a context manager.
 */
export class RunSpans {
  private readonly turn: Span;
  private readonly ctx: Context;

  constructor(private readonly tracer: Tracer, attributes: { runId: string; sessionKey?: string; provider: string; model: string }) {
    const attrs: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'nanobot',
      'gen_ai.provider.name': attributes.provider,
      'gen_ai.request.model': attributes.model,
      'nanobot.run_id': attributes.runId,
    };
    if (attributes.sessionKey !== undefined) attrs['gen_ai.conversation.id'] = attributes.sessionKey;
    this.turn = tracer.startSpan('invoke_agent nanobot', { kind: SpanKind.INTERNAL, attributes: attrs }, otelContext.active());
    this.ctx = trace.setSpan(otelContext.active(), this.turn);
  }

  /** Starts a model-call span; end it with `endModel`. */
  startModel(request: { provider: string; model: string; maxTokens?: number; temperature?: number; iteration: number; purpose: string }): Span {
    const attrs: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': request.provider,
      'gen_ai.request.model': request.model,
      'nanobot.iteration': request.iteration,
      'nanobot.request.purpose': request.purpose,
    };
    if (request.maxTokens !== undefined) attrs['gen_ai.request.max_tokens'] = request.maxTokens;
    if (request.temperature !== undefined) attrs['gen_ai.request.temperature'] = request.temperature;
    return this.tracer.startSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes: attrs }, this.ctx);
  }

  /** Ends a model-call span with what the model answered (or the error text). */
  endModel(span: Span, response: LLMResponse, errorText: string | null, cost?: number): void {
    if (errorText !== null) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorText });
      span.setAttribute('error.type', 'model_error');
    } else {
      const usage = response.usage;
      span.setAttributes({
        'gen_ai.response.finish_reasons': [response.finishReason],
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      });
      if (response.model !== undefined) span.setAttribute('gen_ai.response.model', response.model);
      if (usage.cachedTokens !== undefined) span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedTokens);
      if (usage.cacheCreationTokens !== undefined) span.setAttribute('gen_ai.usage.cache_creation.input_tokens', usage.cacheCreationTokens);
      if (usage.reasoningTokens !== undefined) span.setAttribute('gen_ai.usage.reasoning.output_tokens', usage.reasoningTokens);
      if (cost !== undefined) span.setAttribute('nanobot.cost.usd', cost);
    }
    span.end();
  }

  /** Starts a tool-call span; end it with `endTool`. */
  startTool(name: string, callId: string): Span {
    return this.tracer.startSpan(`execute_tool ${name}`, {
      kind: SpanKind.INTERNAL,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': callId, 'gen_ai.tool.type': 'function' },
    }, this.ctx);
  }

  /** Ends a tool-call span with its status (`error` and `interrupted` mark the span as failed). */
  endTool(span: Span, status: string, detail: string): void {
    span.setAttribute('nanobot.tool.status', status);
    if (status !== 'ok') {
      span.setStatus({ code: SpanStatusCode.ERROR, message: detail });
      span.setAttribute('error.type', status);
    }
    span.end();
  }

  /** Records one governance pass (synchronous, so the span starts and ends here). */
  governance(report: unknown, iteration: number, purpose: string): void {
    const attrs: Attributes = { 'nanobot.iteration': iteration, 'nanobot.request.purpose': purpose };
    numberAttrs(report, ['budget', 'messagesBefore', 'messagesAfter', 'tokensBefore', 'tokensAfter', 'fits'], 'nanobot.govern.', attrs);
    const steps = (report as { steps?: { step?: unknown; changed?: unknown }[] } | null)?.steps;
    if (Array.isArray(steps)) attrs['nanobot.govern.changed_steps'] = steps.filter((s) => s.changed === true).map((s) => String(s.step));
    this.tracer.startSpan('govern', { kind: SpanKind.INTERNAL, attributes: attrs }, this.ctx).end();
  }

  /** Ends the turn span with the run's outcome. */
  end(outcome: { stopReason: string; error: string | null; inputTokens: number; outputTokens: number; cost?: number }): void {
    this.turn.setAttributes({ 'nanobot.stop_reason': outcome.stopReason, 'gen_ai.usage.input_tokens': outcome.inputTokens, 'gen_ai.usage.output_tokens': outcome.outputTokens });
    if (outcome.cost !== undefined) this.turn.setAttribute('nanobot.cost.usd', outcome.cost);
    if (outcome.stopReason === 'error' || outcome.stopReason === 'tool_error') this.turn.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? outcome.stopReason });
    this.turn.end();
  }
}
