import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, ToolCallRequest } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { ScriptedProviderOptions, ScriptedReply } from '@nanobot/providers/testing';

/** One scripted step: a response, a function of the request, or a failure. */
export type FakeStep =
  | Partial<LLMResponse>
  | ((request: LLMRequest) => Partial<LLMResponse> | Promise<Partial<LLMResponse>>)
  | { throwAfterDeltas: string[]; error: Error }
  | { hangAfterDeltas: string[] };

/** Builds a tool call request. */
export function call(name: string, args: unknown = {}, id?: string): ToolCallRequest {
  return { id: id ?? `call_${name}_${Math.random().toString(36).slice(2, 8)}`, name, arguments: args };
}

/** A response asking for tools (usable by FakeModel and, through `scripted`, ScriptedProvider). */
export function toolsStep(...calls: ToolCallRequest[]): Partial<LLMResponse> {
  return { content: '', toolCalls: calls, finishReason: 'tool_calls' };
}

/** A plain answer. */
export function textStep(text: string): Partial<LLMResponse> {
  return { content: text, toolCalls: [], finishReason: 'stop' };
}

/** Steps in the FakeModel shape → a ScriptedProvider from @nanobot/providers/testing. */
export function scripted(steps: (Partial<LLMResponse> | ScriptedReply)[], options: ScriptedProviderOptions = {}): ScriptedProvider {
  return new ScriptedProvider(
    steps.map((step): ScriptedReply => {
      if (!('toolCalls' in step) || step.toolCalls === undefined) return step as ScriptedReply;
      const calls = (step.toolCalls as ToolCallRequest[]).map((c) => ({
        id: c.id,
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : (JSON.parse(JSON.stringify(c.arguments ?? {})) as Record<string, unknown>),
      }));
      return { ...(step as ScriptedReply), toolCalls: calls } as ScriptedReply;
    }),
    options,
  );
}

function complete(partial: Partial<LLMResponse>): LLMResponse {
  return {
    content: partial.content ?? null,
    toolCalls: partial.toolCalls ?? [],
    finishReason: partial.finishReason ?? ((partial.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop'),
    usage: partial.usage ?? { inputTokens: 10, outputTokens: 5 },
    ...(partial.reasoningContent !== undefined ? { reasoningContent: partial.reasoningContent } : {}),
    ...(partial.thinkingBlocks !== undefined ? { thinkingBlocks: partial.thinkingBlocks } : {}),
  };
}

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal?.aborted) fail();
    else signal?.addEventListener('abort', fail, { once: true });
  });
}

/**
 * A minimal scripted LLMProvider for the runner's own tests: steps are consumed in order;
 * streaming splits text into a few deltas. When the script runs out it answers "(script ended)".
 */
export class FakeModel implements LLMProvider {
  readonly name = 'fake';
  readonly defaultModel = 'fake-model';
  readonly requests: LLMRequest[] = [];
  readonly #steps: FakeStep[];

  constructor(steps: FakeStep[] = []) {
    this.#steps = [...steps];
  }

  /** Adds steps at the end. */
  push(...steps: FakeStep[]): void {
    this.#steps.push(...steps);
  }

  get remaining(): number {
    return this.#steps.length;
  }

  async chat(request: LLMRequest): Promise<LLMResponse> {
    let final: LLMResponse | null = null;
    for await (const event of this.stream(request)) if (event.type === 'done') final = event.response;
    if (!final) throw new Error('no response');
    return final;
  }

  async *stream(request: LLMRequest): AsyncIterable<LLMStreamEvent> {
    this.requests.push(request);
    const step = this.#steps.shift() ?? textStep('(script ended)');
    if (typeof step === 'object' && step !== null && 'throwAfterDeltas' in step) {
      for (const delta of step.throwAfterDeltas) yield { type: 'text_delta', delta };
      throw step.error;
    }
    if (typeof step === 'object' && step !== null && 'hangAfterDeltas' in step) {
      for (const delta of step.hangAfterDeltas) yield { type: 'text_delta', delta };
      await waitForAbort(request.signal);
      return;
    }
    const partial = typeof step === 'function' ? await step(request) : step;
    const response = complete(partial);
    const text = response.content ?? '';
    if (text.length > 0) {
      const third = Math.max(1, Math.ceil(text.length / 3));
      for (let i = 0; i < text.length; i += third) yield { type: 'text_delta', delta: text.slice(i, i + third) };
    }
    yield { type: 'done', response };
  }
}
