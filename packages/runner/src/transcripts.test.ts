import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LLMRequest, Message } from '@nanobot/schema';
import { checkLegality } from '@nanobot/governor';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

describe('real recorded transcripts as history', () => {
  it('has the 16 transcripts', () => {
    expect(files).toHaveLength(16);
  });

  it.each(files)('%s: every request is legal and fits, the transcript is only appended to', async (file) => {
    const recorded = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
    const initial = deepFreeze<Message[]>([{ role: 'system', content: 'You are a coding agent.' }, ...recorded, { role: 'user', content: 'Summarise where we are.' }]);
    const tools = new ToolRegistry();
    tools.register(defineTool({ name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } }, readOnly: true, execute: () => 'contents '.repeat(500) }));
    const requests: LLMRequest[] = [];
    const provider = new ScriptedProvider([
      (request) => {
        requests.push(request);
        return { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
      },
      (request) => {
        requests.push(request);
        return 'Here is where we are.';
      },
    ]);
    const windowTokens = 32_000;
    const result = await new AgentRunner().run({ initialMessages: initial, provider, tools, contextWindowTokens: windowTokens, maxTokens: 4096 });
    expect(result.finalContent).toBe('Here is where we are.');
    for (const request of requests) {
      const budget = windowTokens - 4096 - 1024;
      const problems = checkLegality(request.messages, { budget, tools: request.tools ?? null });
      expect(problems).toEqual([]);
    }
    expect(result.messages.slice(0, initial.length)).toEqual(initial);
    expect(checkLegality(result.messages.slice(initial.length))).toEqual([]);
  });
});
