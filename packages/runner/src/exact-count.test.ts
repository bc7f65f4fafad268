import { describe, expect, it } from 'vitest';
import { createUsageCalibrator } from '@nanobot/governor';
import type { GovernReport } from '@nanobot/governor';
import type { LLMRequest, Message, TokenCount } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunSpec } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';

type TokenCountEvent = Extract<RunnerEvent, { type: 'token_count' }>;
type Governance = Extract<RunnerEvent, { type: 'governance' }>;

const WINDOW = 4000;
const MAX_TOKENS = 500;

function history(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a test agent.' }];
  for (let i = 0; i < 30; i++) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(12)}` });
    out.push({ role: 'assistant', content: `answer ${i}: ${'consectetur adipiscing elit '.repeat(12)}` });
  }
  out.push({ role: 'user', content: 'go on' });
  return out;
}

/** A scripted model with an exact counter answering `count`. */
function countingProvider(count: (request: LLMRequest) => Promise<TokenCount>): ScriptedProvider & { counted: LLMRequest[] } {
  const provider = new ScriptedProvider(() => ({ content: 'done', usage: { inputTokens: 0, outputTokens: 1 } })) as ScriptedProvider & { counted: LLMRequest[]; countTokens: (r: LLMRequest) => Promise<TokenCount> };
  provider.counted = [];
  provider.countTokens = (request) => {
    provider.counted.push(request);
    return count(request);
  };
  return provider;
}

function spec(provider: ScriptedProvider, events: RunnerEvent[], extra: Partial<AgentRunSpec> = {}): AgentRunSpec {
  return {
    initialMessages: history(),
    provider,
    tools: new ToolRegistry(),
    contextWindowTokens: WINDOW,
    maxTokens: MAX_TOKENS,
    stream: false,
    events: (e) => void events.push(e),
    governOptions: { cuts: 'tightest' },
    ...extra,
  };
}

describe('exact counts from the provider', () => {
  it('the first request is counted, the calibrator learns, and the request is governed again with it', async () => {
    const calibrator = createUsageCalibrator();
    const events: RunnerEvent[] = [];
    const provider = countingProvider(async () => ({ inputTokens: 3000, provider: 'scripted', model: 'm' }));
    const result = await new AgentRunner().run(spec(provider, events, { calibrator, sessionKey: 's1' }));
    expect(result.error).toBeNull();
    const counts = events.filter((e): e is TokenCountEvent => e.type === 'token_count');
    expect(counts).toHaveLength(1);
    expect(counts[0]).toMatchObject({ ok: true, inputTokens: 3000 });
    expect(counts[0].estimated).toBeLessThan(3000);
    expect(calibrator.ratio(provider.defaultModel)).toBeGreaterThanOrEqual(3000 / counts[0].estimated);
    const governed = events.filter((e): e is Governance => e.type === 'governance');
    // Governed twice for the one request: by the estimate, then by the calibrated exact figure.
    expect(governed).toHaveLength(2);
    const [before, after] = governed.map((g) => g.report as GovernReport);
    // The exact figure showed the first cut was too generous: the second cuts deeper and fits.
    expect(before.tokensAfter).toBe(counts[0].estimated);
    expect(after.tokensAfter!).toBeLessThan(before.tokensAfter!);
    expect(after.tokensCalibrated!).toBeLessThanOrEqual(WINDOW - MAX_TOKENS);
  });

  it('later requests of the same session are not counted while the calibrator has data', async () => {
    const calibrator = createUsageCalibrator();
    const runner = new AgentRunner();
    const provider = countingProvider(async (request) => ({ inputTokens: 2000 + request.messages.length, provider: 'scripted', model: 'm' }));
    await runner.run(spec(provider, [], { calibrator, sessionKey: 's2' }));
    await runner.run(spec(provider, [], { calibrator, sessionKey: 's2' }));
    expect(provider.counted).toHaveLength(1);
    await runner.run(spec(provider, [], { calibrator, sessionKey: 'another' }));
    expect(provider.counted).toHaveLength(2);
  });

  it('a failing count never fails the turn: the estimate serves and an event says why', async () => {
    for (const failure of [async () => Promise.reject(new Error('count_tokens: 404 not found')), () => new Promise<TokenCount>(() => {})]) {
      const events: RunnerEvent[] = [];
      const provider = countingProvider(failure as () => Promise<TokenCount>);
      const result = await new AgentRunner().run(spec(provider, events, { calibrator: createUsageCalibrator(), countTokensTimeoutMs: 50 }));
      expect(result.error).toBeNull();
      expect(result.finalContent).toBe('done');
      const counts = events.filter((e): e is TokenCountEvent => e.type === 'token_count');
      expect(counts).toHaveLength(1);
      expect(counts[0]).toMatchObject({ ok: false, error: expect.stringMatching(/404|timed out/) });
      expect(events.filter((e) => e.type === 'governance')).toHaveLength(1);
    }
  });

  it('without a calibrator or a counter nothing is counted', async () => {
    const events: RunnerEvent[] = [];
    const provider = countingProvider(async () => ({ inputTokens: 1, provider: 'scripted', model: 'm' }));
    await new AgentRunner().run(spec(provider, events));
    expect(provider.counted).toHaveLength(0);
    expect(events.some((e) => e.type === 'token_count')).toBe(false);
  });
});
