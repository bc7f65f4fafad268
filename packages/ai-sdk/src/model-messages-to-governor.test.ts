import { checkLegality, govern } from '@nanobot/governor';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages, modelMessagesToGovernor } from './index.js';

const history: ModelMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'List the files.' },
  { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: { path: '.' } }, { type: 'tool-call', toolCallId: 'c2', toolName: 'ls', input: { path: 'src' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a.ts' } }] },
];

describe('modelMessagesToGovernor', () => {
  it('is the view the report counts: one tool message per result, the unanswered call visible to checkLegality', () => {
    const view = modelMessagesToGovernor(history);
    expect(view.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(view[2].tool_calls?.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(checkLegality(view).map((v) => v.rule)).toEqual(['unanswered-tool-call']);
    // governModelMessages reports on exactly this view.
    const { report } = governModelMessages(history, { target: 'openai' });
    expect(report).toEqual(govern(view, { target: 'openai' }).report);
    expect(report.messagesBefore).toBe(view.length);
  });

  it('refuses what is not an AI SDK history, naming the index', () => {
    expect(() => modelMessagesToGovernor([{ role: 'user', content: 'x' }, 7] as unknown as ModelMessage[])).toThrow(/messages\[1\]/);
  });
});
