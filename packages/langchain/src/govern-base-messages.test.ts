import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { BACKFILL_CONTENT, MemoryArtifactStore } from '@nanobot/governor';
import { NanobotError } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { governBaseMessages } from './govern-base-messages.js';

const exec = (id: string, args: Record<string, unknown> = { command: 'ls' }) => ({ id, name: 'exec', args, type: 'tool_call' as const });

describe('governBaseMessages', () => {
  it('answers a call that never got its result with an error ToolMessage; the rest are the input objects', () => {
    const history: BaseMessage[] = [
      new SystemMessage('be brief'),
      new HumanMessage('list files'),
      new AIMessage({ content: 'Listing.', tool_calls: [exec('c1')], id: 'run-1', response_metadata: { model: 'm' } }),
      new HumanMessage('well?'),
    ];
    const { messages, report } = governBaseMessages(history);
    expect(messages).toHaveLength(5);
    [0, 1, 2].forEach((i) => expect(messages[i]).toBe(history[i]));
    expect(messages[4]).toBe(history[3]);
    const filled = messages[3];
    expect(ToolMessage.isInstance(filled)).toBe(true);
    expect(filled).toMatchObject({ tool_call_id: 'c1', content: BACKFILL_CONTENT, status: 'error', name: 'exec' });
    expect(report.steps.find((s) => s.step === 'backfillMissingToolResults' && s.changed)?.added).toEqual([expect.objectContaining({ toolCallId: 'c1' })]);
  });

  it('drops an orphan result and keeps a valid history as the same array', () => {
    const valid: BaseMessage[] = [
      new HumanMessage('hi'),
      new AIMessage({ content: '', tool_calls: [exec('c1')] }),
      new ToolMessage({ content: 'a.txt', tool_call_id: 'c1', name: 'exec' }),
      new AIMessage('one file'),
      new HumanMessage('thanks'),
    ];
    expect(governBaseMessages(valid).messages).toBe(valid);
    const orphan = new ToolMessage({ content: 'stale', tool_call_id: 'gone' });
    const { messages } = governBaseMessages([valid[0], orphan, ...valid.slice(1)]);
    expect(messages).toEqual(valid);
    messages.forEach((m, i) => expect(m).toBe(valid[i]));
  });

  it('cuts an oversized result and keeps its id, status, artifact and metadata', () => {
    const big = new ToolMessage({ content: 'x'.repeat(40_000), tool_call_id: 'c1', name: 'exec', status: 'success', artifact: { raw: true }, id: 'tm-1', additional_kwargs: { k: 1 } });
    const history: BaseMessage[] = [new HumanMessage('go'), new AIMessage({ content: [{ type: 'text', text: 'running' }], tool_calls: [exec('c1')] }), big, new HumanMessage('and?')];
    const store = new MemoryArtifactStore();
    const { messages, report } = governBaseMessages(history, { maxToolResultChars: 2000, artifactStore: store, sessionKey: 's' });
    const cut = messages[2] as ToolMessage;
    expect(cut).not.toBe(big);
    expect(ToolMessage.isInstance(cut)).toBe(true);
    expect(cut).toMatchObject({ tool_call_id: 'c1', name: 'exec', status: 'success', artifact: { raw: true }, id: 'tm-1', additional_kwargs: { k: 1 } });
    expect(String(cut.content).length).toBeLessThan(3000);
    expect(report.steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults).toEqual([expect.objectContaining({ action: 'offloaded', toolCallId: 'c1' })]);
    expect(messages[1]).toBe(history[1]);
  });

  it('renames a reused call id and keeps the AIMessage fields, content blocks and the call args', () => {
    const args = { pattern: 'x' };
    const second = new AIMessage({
      content: [{ type: 'thinking', thinking: 'hm', signature: 'c2ln' }, { type: 'text', text: 'again' }],
      tool_calls: [{ ...exec('dup', args), name: 'grep' }],
      id: 'run-2',
      additional_kwargs: { extra: true },
      response_metadata: { stop_reason: 'tool_use' },
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
    const history: BaseMessage[] = [
      new HumanMessage('go'),
      new AIMessage({ content: '', tool_calls: [exec('dup')] }),
      new ToolMessage({ content: 'one', tool_call_id: 'dup' }),
      second,
      new ToolMessage({ content: 'two', tool_call_id: 'dup' }),
      new HumanMessage('next'),
    ];
    const { messages } = governBaseMessages(history);
    const renamed = messages[3] as AIMessage;
    expect(AIMessage.isInstance(renamed)).toBe(true);
    expect(renamed.tool_calls![0]).toMatchObject({ id: 'dup__2', name: 'grep' });
    expect(renamed.tool_calls![0].args).toBe(args);
    expect(renamed.content).toBe(second.content);
    expect(renamed).toMatchObject({ id: 'run-2', additional_kwargs: { extra: true }, response_metadata: { stop_reason: 'tool_use' }, usage_metadata: { total_tokens: 7 } });
    expect((messages[4] as ToolMessage).tool_call_id).toBe('dup__2');
  });

  it('refuses what is not a LangChain history with a typed error, naming the place', () => {
    const bad = (messages: unknown) => () => governBaseMessages(messages as BaseMessage[]);
    expect(bad('nope')).toThrow(NanobotError);
    expect(bad([{ type: 'robot', content: 'x' }])).toThrow(/messages\[0\] has type "robot"/);
    expect(bad([new HumanMessage('x'), { type: 'tool', content: 'x' }])).toThrow(/messages\[1\] \(tool\) needs a string tool_call_id/);
    expect(bad([{ type: 'human', content: 42 }])).toThrow(/content must be a string or a list/);
  });
});
