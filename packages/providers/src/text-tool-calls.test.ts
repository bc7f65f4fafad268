import { describe, expect, it } from 'vitest';
import { extractTextToolCalls } from './text-tool-calls.js';
import { shouldExecuteTools } from './should-execute-tools.js';

describe('extractTextToolCalls', () => {
  it('turns <tool_call> JSON blocks (fenced or not) into calls and removes them from the text', () => {
    const text = 'Let me check.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n<tool_call>\n```json\n{"name": "ls", "arguments": {}}\n```\n</tool_call>';
    expect(extractTextToolCalls(text)).toEqual({ content: 'Let me check.', calls: [{ name: 'read_file', arguments: { path: 'a' } }, { name: 'ls', arguments: {} }] });
  });
  it('leaves blocks that are not usable calls in the text', () => {
    const text = 'x <tool_call>not json</tool_call> <tool_call>{"arguments": {}}</tool_call>';
    expect(extractTextToolCalls(text)).toEqual({ content: text, calls: [] });
  });
  it('returns null content when only calls were there', () => {
    expect(extractTextToolCalls('<tool_call>{"name": "x"}</tool_call>').content).toBeNull();
  });
});

describe('shouldExecuteTools', () => {
  it('runs calls only after a normal finish', () => {
    const calls = [{ id: 'a', name: 'x', arguments: {} }];
    expect(shouldExecuteTools({ toolCalls: calls, finishReason: 'tool_calls' })).toBe(true);
    expect(shouldExecuteTools({ toolCalls: calls, finishReason: 'stop' })).toBe(true);
    expect(shouldExecuteTools({ toolCalls: calls, finishReason: 'length' })).toBe(false);
    expect(shouldExecuteTools({ toolCalls: calls, finishReason: 'content_filter' })).toBe(false);
    expect(shouldExecuteTools({ toolCalls: [], finishReason: 'tool_calls' })).toBe(false);
  });
});
