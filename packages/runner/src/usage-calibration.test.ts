import { describe, expect, it } from 'vitest';
import { createUsageCalibrator } from '@nanobot/governor';
import type { GovernReport } from '@nanobot/governor';
import { ConfigurationError, type Message } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunSpec } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';

type ModelEnd = Extract<RunnerEvent, { type: 'model_end' }>;
type Governance = Extract<RunnerEvent, { type: 'governance' }>;

const WINDOW = 4000;
const MAX_TOKENS = 500;
const INPUT_BUDGET = WINDOW - MAX_TOKENS - 1024;

function longHistory(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a test agent.' }];
  for (let i = 0; i < 30; i++) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(12)}` });
    out.push({ role: 'assistant', content: `answer ${i}: ${'consectetur adipiscing elit '.repeat(12)}` });
  }
  out.push({ role: 'user', content: 'look it up' });
  return out;
}

/**
 * A provider billing 1.3× whatever the governor estimated for the request it answers (read from
 * `onGoverned`, which runs synchronously before the provider is called).
 */
function billingProvider(toolTurns: number): { provider: ScriptedProvider; events: RunnerEvent[]; onGoverned: AgentRunSpec['onGoverned'] } {
  const events: RunnerEvent[] = [];
  let estimate = 0;
  const onGoverned: AgentRunSpec['onGoverned'] = (request) => {
    estimate = (request.report as GovernReport).tokensAfter!;
  };
  const provider = new ScriptedProvider((_request, turn) => ({
    ...(turn < toolTurns ? { toolCalls: [{ id: `c${turn}`, name: 'echo', arguments: { text: `t${turn}` } }] } : { content: 'done' }),
    usage: { inputTokens: Math.ceil(1.3 * estimate), outputTokens: 10 },
  }));
  return { provider, events, onGoverned };
}

function registry(): ToolRegistry {
  const r = new ToolRegistry();
  r.register(defineTool({ name: 'echo', description: 'echo', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, readOnly: true, execute: (a: { text: string }) => `echo: ${a.text}` }));
  return r;
}

function spec(billing: { provider: ScriptedProvider; events: RunnerEvent[]; onGoverned?: AgentRunSpec['onGoverned'] }, extra: Partial<AgentRunSpec> = {}): AgentRunSpec {
  const { provider, events, onGoverned } = billing;
  return {
    ...(onGoverned ? { onGoverned } : {}),
    initialMessages: longHistory(),
    provider,
    tools: registry(),
    contextWindowTokens: WINDOW,
    maxTokens: MAX_TOKENS,
    stream: false,
    events: (e) => void events.push(e),
    ...extra,
  };
}

describe('usage calibration in the runner', () => {
  it('feeds the calibrator; after the first request every request fits by the billed count, keeping correspondingly less', async () => {
    const calibrator = createUsageCalibrator();
    const billing = billingProvider(4);
    const { events } = billing;
    // Tightest cuts: the default stable cuts leave room behind a fresh cut, which would hide
    // the cold request's overshoot this test is about.
    const result = await new AgentRunner().run(spec(billing, { calibrator, governOptions: { cuts: 'tightest' } }));
    expect(result.error).toBeNull();
    expect(result.stopReason).toBe('completed');
    const ends = events.filter((e): e is ModelEnd => e.type === 'model_end');
    const governed = events.filter((e): e is Governance => e.type === 'governance');
    expect(ends).toHaveLength(5);
    ends.forEach((end, i) => {
      const report = governed[i].report as GovernReport;
      expect(end.tokensEstimated).toBe(report.tokensAfter);
      expect(end.tokensCalibrated).toBe(report.tokensCalibrated);
      expect(end.tokensActual).toBe(end.usage.inputTokens);
      expect(report.inputBudget).toBe(INPUT_BUDGET);
    });
    // Cold: the first request is sized by the raw estimate, and the provider bills more than fits.
    expect(ends[0].tokensCalibrated).toBe(ends[0].tokensEstimated);
    expect(ends[0].tokensActual).toBeGreaterThan(INPUT_BUDGET);
    for (let i = 1; i < ends.length; i++) {
      expect(ends[i].tokensCalibrated).toBeGreaterThanOrEqual(ends[i].tokensActual!);
      expect(ends[i].tokensActual).toBeLessThanOrEqual(INPUT_BUDGET);
      const report = governed[i].report as GovernReport;
      expect(report.budget).toBeLessThan(INPUT_BUDGET / 1.3);
      // The transcript grew, yet less of it is sent.
      expect(governed[i].transcriptCount).toBeGreaterThan(governed[0].transcriptCount);
      expect(governed[i].requestCount).toBeLessThan(governed[0].requestCount);
    }
    expect(calibrator.ratio('scripted-model')).toBeGreaterThanOrEqual(1.3);
  });

  it('a calibrator shared across runs sizes the next run from its first request', async () => {
    const calibrator = createUsageCalibrator();
    const first = billingProvider(0);
    await new AgentRunner().run(spec(first, { calibrator }));
    const second = billingProvider(0);
    await new AgentRunner().run(spec(second, { calibrator }));
    const end = second.events.find((e): e is ModelEnd => e.type === 'model_end')!;
    expect(end.tokensActual).toBeLessThanOrEqual(INPUT_BUDGET);
    expect(end.tokensCalibrated).toBeGreaterThanOrEqual(end.tokensActual!);
  });

  it('without a calibrator the event still carries estimate and actual; a provider without usage gives no actual', async () => {
    const billing = billingProvider(0);
    const { events } = billing;
    await new AgentRunner().run(spec(billing));
    const end = events.find((e): e is ModelEnd => e.type === 'model_end')!;
    expect(end.tokensCalibrated).toBe(end.tokensEstimated);
    expect(end.tokensActual).toBe(Math.ceil(1.3 * end.tokensEstimated!));
    const silent: RunnerEvent[] = [];
    await new AgentRunner().run(spec({ provider: new ScriptedProvider(['hi']), events: silent }, { calibrator: createUsageCalibrator() }));
    const quiet = silent.find((e): e is ModelEnd => e.type === 'model_end')!;
    expect(quiet.tokensActual).toBeUndefined();
    expect(quiet.tokensEstimated).toBeGreaterThan(0);
  });

  it('rejects a calibrator without observe() and calibrate()', async () => {
    await expect(new AgentRunner().run(spec(billingProvider(0), { calibrator: { calibrate: () => 1 } as never }))).rejects.toThrow(ConfigurationError);
  });
});
