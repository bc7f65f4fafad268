// A tool result's image moves into a user message after the results (chat completions take no
// image in a tool message); for APIs that refuse a user message right after a tool message
// (Mistral, Gemini's endpoint) the governor's marked assistant turn goes between.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality, TOOL_RESULTS_RECEIVED } from '@nanobot/governor';
import { toOpenAIMessages } from './openai-request.js';
import { findProviderSpec } from './registry/find-provider-spec.js';

const history: Message[] = [
  { role: 'user', content: 'look at the screen' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'abcDEF123', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'abcDEF123', name: 'screenshot', content: [{ type: 'text', text: 'taken' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
];

describe('tool attachments and the target', () => {
  it('Mistral: the attachments\' user message comes after a marked assistant turn', () => {
    const out = toOpenAIMessages(history, { spec: findProviderSpec('mistral') });
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(out[3]).toEqual({ role: 'assistant', content: TOOL_RESULTS_RECEIVED });
    expect(checkLegality(out, { target: 'mistral' })).toEqual([]);
  });

  it('OpenAI keeps the user message right after the results', () => {
    expect(toOpenAIMessages(history, { spec: findProviderSpec('openai') }).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });
});
