// The runner governs every request for the API behind its provider (issue 26 item 4): the
// provider's governorTarget becomes the governor's target unless governOptions names one.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { checkLegality, type GovernReport } from '@nanobot/governor';
import { AgentRunner } from './agent-runner.js';
import type { GovernedRequest } from './runner-ports.js';

const stored: Message[] = [
  { role: 'user', content: 'run the tests' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'exec', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'toolu_01A', name: 'exec', content: 'exit 1' },
  { role: 'user', content: 'the environment says the tests failed' },
];

async function governedFor(governorTarget: string | undefined, governOptions = {}): Promise<GovernedRequest> {
  const provider = Object.assign(new ScriptedProvider(['ok']), governorTarget === undefined ? {} : { governorTarget });
  const seen: GovernedRequest[] = [];
  await new AgentRunner().run({ initialMessages: stored, provider, tools: new ToolRegistry(), onGoverned: (r) => seen.push(r), governOptions });
  return seen[0];
}

describe("the provider's governor target", () => {
  it('is passed to the governor on every request (Mistral: 9-alphanumeric ids, no user right after a tool)', async () => {
    const r = await governedFor('mistral');
    expect((r.report as GovernReport).target).toBe('mistral');
    expect(checkLegality(r.messages, { target: 'mistral' })).toEqual([]);
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('governOptions.target wins; without either the governor default applies; an unknown name is ignored', async () => {
    expect(((await governedFor('mistral', { target: 'openai' })).report as GovernReport).target).toBe('openai');
    expect(((await governedFor(undefined)).report as GovernReport).target).toBe('any');
    expect(((await governedFor('cohere')).report as GovernReport).target).toBe('any');
  });
});
