// The dialects' public views (anthropicToModel, responsesToModel): the model copy the report's
// indices count, so the report of the dialect call lines up with checkLegality and govern on it.
import { describe, expect, it } from 'vitest';
import { checkLegality, govern } from '../index.js';
import { anthropicToModel, governAnthropic } from './anthropic/index.js';
import type { AnthropicMessageLike } from './anthropic/index.js';
import { governResponses, responsesToModel } from './responses/index.js';
import type { ResponsesItemLike } from './responses/index.js';

describe('dialect views', () => {
  it('anthropicToModel: a tool_result turn becomes tool messages, and governAnthropic reports on that view', () => {
    const messages = [
      { role: 'user', content: 'List src.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: { path: 'src' } }, { type: 'tool_use', id: 'toolu_2', name: 'ls', input: { path: 'lib' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' }, { type: 'text', text: 'And?' }] },
    ] as const;
    const view = anthropicToModel('Be brief.', messages);
    expect(view.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(checkLegality(view, { target: 'anthropic' }).map((v) => v.rule)).toContain('unanswered-tool-call');
    const { report } = governAnthropic({ system: 'Be brief.', messages });
    expect(report.messagesBefore).toBe(view.length);
    expect(report).toEqual(govern(view, { target: 'anthropic' }).report);
  });

  it('responsesToModel: a function_call_output becomes a tool message after its call', () => {
    const items = [
      { type: 'message', role: 'user', content: 'Weather?' },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
    ];
    const input: ResponsesItemLike[] = items;
    const view = responsesToModel(input);
    expect(view.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(checkLegality(view, { target: 'responses' })).toEqual([]);
    expect(governResponses(input).report.messagesBefore).toBe(view.length);
  });

  it('refuse what is not their dialect', () => {
    expect(() => anthropicToModel(undefined, 'nope' as unknown as AnthropicMessageLike[])).toThrow(/messages must be an array/);
    expect(() => responsesToModel({} as unknown as ResponsesItemLike[])).toThrow(/input must be an array/);
  });
});
