import { describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import type { LLMRequest } from '@nanobot/schema';
import { AgentRunner } from './agent-runner.js';
import { cacheBreakpointsField, cacheBreakpointsOf } from './cache-breakpoints-of.js';

describe('cacheBreakpointsOf', () => {
  it('keeps well-formed indices into the request and tools only when tools are sent', () => {
    const report = { cacheBoundaries: { tools: true, instructions: 0, cut: 1.5, previous: -1, last: 9, extra: 3 } };
    expect(cacheBreakpointsOf(report, 10, true)).toEqual({ tools: true, instructions: 0, last: 9 });
    expect(cacheBreakpointsOf(report, 5, false)).toEqual({ instructions: 0 });
  });

  it('a report without boundaries (a custom governor) plans nothing', () => {
    expect(cacheBreakpointsOf(null, 3, true)).toBeUndefined();
    expect(cacheBreakpointsOf({ steps: [] }, 3, true)).toBeUndefined();
    expect(cacheBreakpointsField('x', 3, true)).toEqual({});
  });
});

describe('the runner passes the default governor\'s boundaries to the provider', () => {
  it('with the default governor the request carries them; with a custom one that reports none, it does not', async () => {
    const seen: LLMRequest[] = [];
    const run = (customGovernor: boolean) =>
      new AgentRunner().run({
        initialMessages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }],
        provider: new ScriptedProvider((request) => { seen.push(request); return 'ok'; }),
        tools: new ToolRegistry(),
        tracer: false,
        ...(customGovernor ? { govern: (messages) => ({ messages, report: {} }) } : {}),
      });
    await run(false);
    expect(seen[0].cacheBreakpoints).toEqual({ instructions: 0, last: 1 });
    await run(true);
    expect(seen[1].cacheBreakpoints).toBeUndefined();
  });
});
