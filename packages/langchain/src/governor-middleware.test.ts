import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { checkLegality, type GovernReport } from '@nanobot/governor';
import { NanobotError } from '@nanobot/schema';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { governorMiddleware } from './governor-middleware.js';
import { DialectMemo } from '@nanobot/governor/dialect';
import { toGovernorView } from './internal/to-governor-messages.js';
import { RecordingChatModel } from './test-support/recording-chat-model.js';

const legal = (messages: BaseMessage[]) => checkLegality(toGovernorView(messages, 'test', new DialectMemo()), { target: 'any' });

describe('governorMiddleware with the real createAgent', () => {
  it('the model gets a legal copy of a damaged history; the agent state keeps the history as it was', async () => {
    const history: BaseMessage[] = [
      new HumanMessage('list files'),
      new ToolMessage({ content: 'stale output', tool_call_id: 'gone' }),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'exec', args: { command: 'ls' }, type: 'tool_call' }] }),
      new HumanMessage('hello?'),
    ];
    expect(legal(history).map((v) => v.rule)).toEqual(expect.arrayContaining(['orphan-tool-result', 'unanswered-tool-call']));

    const model = new RecordingChatModel([new AIMessage('here')]);
    const reports: GovernReport[] = [];
    const agent = createAgent({ model, tools: [], systemPrompt: 'You are terse.', middleware: [governorMiddleware({ onReport: (r) => reports.push(r) })] });
    const state = await agent.invoke({ messages: history });

    expect(model.calls).toHaveLength(1);
    const sent = model.calls[0];
    expect(sent[0].type).toBe('system');
    expect(sent[0].text).toBe('You are terse.');
    expect(legal(sent)).toEqual([]);
    expect(sent.map((m) => m.type)).toEqual(['system', 'human', 'ai', 'tool', 'human']);
    expect(JSON.stringify(sent.map((m) => m.content))).not.toContain('stale output');
    expect(reports).toHaveLength(1);
    // Storage is untouched: the orphan is still in the agent's own history.
    expect(state.messages.map((m: BaseMessage) => m.content)).toContain('stale output');
  });

  it('governs every model call of a tool loop: the second call sees the huge tool output cut', async () => {
    const dump = tool(async () => 'y'.repeat(60_000), { name: 'dump', description: 'dump data', schema: z.object({ n: z.number() }) });
    const model = new RecordingChatModel([
      new AIMessage({ content: '', tool_calls: [{ id: 'call_a', name: 'dump', args: { n: 1 }, type: 'tool_call' }] }),
      new AIMessage('summarised'),
    ]);
    const reports: GovernReport[] = [];
    const agent = createAgent({ model, tools: [dump], middleware: [governorMiddleware({ contextWindowTokens: 16_000, maxOutputTokens: 2_000, maxToolResultChars: 1_000, onReport: (r) => reports.push(r) })] });
    const state = await agent.invoke({ messages: [new HumanMessage('dump it')] });

    expect(model.calls).toHaveLength(2);
    const toolSent = model.calls[1].find((m) => m.type === 'tool')!;
    expect(String(toolSent.content).length).toBeLessThan(2_000);
    expect(legal(model.calls[1])).toEqual([]);
    // The tool definitions count against the budget.
    expect(reports[0].budget).toBe(16_000 - 2_000 - 1024);
    expect(reports[1].steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults).toEqual([expect.objectContaining({ toolCallId: 'call_a', action: 'truncated' })]);
    const stored = state.messages.find((m: BaseMessage) => m.type === 'tool')!;
    expect(String(stored.content)).toHaveLength(60_000);
    expect(state.messages[state.messages.length - 1].content).toBe('summarised');
  });

  it('counts the agent\'s system message against the budget and says when it alone does not fit', async () => {
    const model = new RecordingChatModel([new AIMessage('ok')]);
    const reports: GovernReport[] = [];
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: 'rules. '.repeat(3_000),
      middleware: [governorMiddleware({ contextWindowTokens: 4_000, maxOutputTokens: 500, onReport: (r) => reports.push(r) })],
    });
    await agent.invoke({ messages: [new HumanMessage('hi')] });
    expect(reports[0].fits).toBe(false);
    expect(reports[0].overflow?.reason).toBe('instructions');
    expect(model.calls[0][0].type).toBe('system');
    expect(model.calls[0].filter((m) => m.type === 'system')).toHaveLength(1);
  });

  it('refuses bad options when it is created, with a typed error', () => {
    expect(() => governorMiddleware({ target: 'palm' as 'openai' })).toThrow(NanobotError);
  });
});
