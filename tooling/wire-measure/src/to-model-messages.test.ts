import { describe, expect, it } from 'vitest';
import { MODEL_SWITCH_FIXTURES } from './model-switch-fixtures.js';
import { toModelMessages } from './to-model-messages.js';

const parts = (name: string): Record<string, unknown>[] =>
  toModelMessages(MODEL_SWITCH_FIXTURES[name]!.messages as never).flatMap((m) => (Array.isArray(m.content) ? (m.content as unknown as Record<string, unknown>[]) : []));

describe('toModelMessages', () => {
  it('carries each producer\'s reasoning metadata in providerOptions', () => {
    const anthropic = parts('anthropic-thinking-tool-loop').find((p) => p.type === 'reasoning')!;
    expect(anthropic.providerOptions).toEqual({ anthropic: { signature: expect.any(String) } });
    const bedrock = parts('bedrock-signed-reasoning').find((p) => p.type === 'reasoning')!;
    expect(Object.keys(bedrock.providerOptions as object)).toEqual(['bedrock']);
    const gemini = parts('gemini-thought-signatures').find((p) => p.type === 'tool-call')!;
    expect(gemini.providerOptions).toEqual({ google: { thoughtSignature: expect.any(String) } });
    const responses = parts('responses-encrypted-reasoning').find((p) => p.type === 'reasoning')!;
    expect(responses.providerOptions).toEqual({ openai: { itemId: 'rs_resp01', reasoningEncryptedContent: expect.any(String) } });
    const deepseek = parts('deepseek-reasoner-tool-loop').find((p) => p.type === 'reasoning')!;
    expect(deepseek).toEqual({ type: 'reasoning', text: 'Use wc -l.' });
    const unsigned = parts('anthropic-aborted-unsigned-thinking').find((p) => p.type === 'reasoning')!;
    expect(unsigned.providerOptions).toBeUndefined();
  });

  it('turns provider-executed tool blocks into provider-executed calls and results, and merges consecutive results', () => {
    const ps = parts('anthropic-server-tool-blocks');
    expect(ps.find((p) => p.type === 'tool-call' && p.providerExecuted === true)).toMatchObject({ toolCallId: 'srvtoolu_04D1', toolName: 'web_search' });
    expect(ps.find((p) => p.type === 'tool-result')).toMatchObject({ toolCallId: 'srvtoolu_04D1', toolName: 'web_search' });
    const tools = toModelMessages(MODEL_SWITCH_FIXTURES['anthropic-thinking-parallel-calls']!.messages as never).filter((m) => m.role === 'tool');
    expect(tools[0]!.content).toHaveLength(3);
  });
});
