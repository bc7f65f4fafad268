// Target inference from the chat model class (issue 25 item 5): the real provider classes
// (@langchain/openai, @langchain/anthropic, @langchain/deepseek), the documented `_llmType`s of
// the others, and the middleware applying the inferred target on a real createAgent call.
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage, type AIMessage as AIMessageType } from '@langchain/core/messages';
import { ChatDeepSeek } from '@langchain/deepseek';
import { ChatOpenAI } from '@langchain/openai';
import { checkLegality, type GovernReport } from '@nanobot/governor';
import { DialectMemo } from '@nanobot/governor/dialect';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { governorMiddleware } from './governor-middleware.js';
import { governorTargetForChatModel } from './governor-target-for.js';
import { toGovernorView } from './internal/to-governor-messages.js';
import { RecordingChatModel } from './test-support/recording-chat-model.js';

/** A recording model that reports another class's `_llmType` (what the provider packages return). */
class TypedModel extends RecordingChatModel {
  constructor(private readonly type: string, replies?: AIMessageType[]) {
    super(replies);
  }

  override _llmType(): string {
    return this.type;
  }
}

describe('governorTargetForChatModel', () => {
  it('reads the real provider classes', () => {
    expect(governorTargetForChatModel(new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'k' }))).toBe('openai');
    expect(governorTargetForChatModel(new ChatOpenAI({ model: 'gpt-5', apiKey: 'k', useResponsesApi: true }))).toBe('responses');
    expect(governorTargetForChatModel(new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'k' }))).toBe('anthropic');
    // ChatDeepSeek extends the OpenAI class: its own type wins.
    expect(governorTargetForChatModel(new ChatDeepSeek({ model: 'deepseek-reasoner', apiKey: 'k' }))).toBe('deepseek');
  });

  it('reads the other packages\' documented _llmType values, and knows nothing of unknown models', () => {
    expect(governorTargetForChatModel(new TypedModel('googlegenerativeai'))).toBe('gemini');
    expect(governorTargetForChatModel(new TypedModel('vertexai'))).toBe('gemini');
    expect(governorTargetForChatModel(new TypedModel('amazon_bedrock_converse'))).toBe('bedrock');
    expect(governorTargetForChatModel(new TypedModel('mistral_ai'))).toBe('mistral');
    expect(governorTargetForChatModel(new TypedModel('openrouter'))).toBe('openrouter');
    expect(governorTargetForChatModel(new TypedModel('azure_openai'))).toBe('openai');
    expect(governorTargetForChatModel(new RecordingChatModel())).toBeUndefined();
    expect(governorTargetForChatModel(null)).toBeUndefined();
    expect(governorTargetForChatModel({ _llmType: () => { throw new Error('no'); } })).toBeUndefined();
  });
});

describe('governorMiddleware without a target', () => {
  const history = () => [
    new HumanMessage('run it'),
    new AIMessage({ content: '', tool_calls: [{ id: 'toolu_01ABC', name: 'exec', args: { command: 'ls' }, type: 'tool_call' }] }),
    new ToolMessage({ content: 'exit 1', tool_call_id: 'toolu_01ABC' }),
    new HumanMessage('the environment says the tests failed'),
  ];

  it('governs for the chat model\'s API (Mistral: 9-alphanumeric ids, a turn between the result and the user)', async () => {
    const model = new TypedModel('mistral_ai', [new AIMessage('ok')]);
    const reports: GovernReport[] = [];
    const agent = createAgent({ model, tools: [], middleware: [governorMiddleware({ onReport: (r) => reports.push(r) })] });
    await agent.invoke({ messages: history() });
    const sent = model.calls[0]!;
    const view = toGovernorView(sent, 'test', new DialectMemo());
    expect(checkLegality(view, { target: 'mistral' })).toEqual([]);
    expect(sent.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai', 'human']);
    expect((sent[1] as AIMessageType).tool_calls?.[0]?.id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(reports[0]!.steps.some((s) => s.step === 'separateToolResultsFromUser' && s.changed)).toBe(true);
  });

  it('an explicit target wins, and an unknown model keeps the default', async () => {
    const explicit = new TypedModel('mistral_ai', [new AIMessage('ok')]);
    await createAgent({ model: explicit, tools: [], middleware: [governorMiddleware({ target: 'openai' })] }).invoke({ messages: history() });
    expect((explicit.calls[0]![1] as AIMessageType).tool_calls?.[0]?.id).toBe('toolu_01ABC');
    const unknown = new RecordingChatModel([new AIMessage('ok')]);
    await createAgent({ model: unknown, tools: [], middleware: [governorMiddleware()] }).invoke({ messages: history() });
    expect(unknown.calls[0]!.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human']);
  });
});
