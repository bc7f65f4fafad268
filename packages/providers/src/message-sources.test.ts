import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { enforceRoleAlternation } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { moveToolAttachmentsToUser } from './move-tool-attachments.js';
import { sourcesAfterAlternation, sourcesAfterAttachmentMove } from './message-sources.js';

/** The original indices a converted message's text mentions (each original says `m<i>`). */
function mentioned(message: Message): number[] {
  return [...JSON.stringify(message.content ?? '').matchAll(/m(\d+)\b/g)].map((m) => Number(m[1]));
}

const role = fc.constantFrom('system', 'user', 'assistant', 'assistant+calls', 'tool', 'tool+image');

function history(roles: string[]): Message[] {
  return roles.map((r, i) => {
    if (r === 'assistant+calls') return { role: 'assistant', content: `m${i}`, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '{}' } }] };
    if (r === 'tool') return { role: 'tool', tool_call_id: `c${i}`, content: `m${i}` };
    if (r === 'tool+image') return { role: 'tool', tool_call_id: `c${i}`, content: [{ type: 'text', text: `m${i}` }, { type: 'image_url', image_url: { url: `https://x/m${i}.png` } }] };
    return { role: r as Message['role'], content: `m${i}` };
  });
}

describe('sources of converted messages', () => {
  it('property: each converted message maps to the newest original it holds (or the one before it); nothing held maps to the next; never decreasing', () => {
    fc.assert(
      fc.property(fc.array(role, { minLength: 1, maxLength: 14 }), (roles) => {
        const input = deepFreeze(history(roles));
        const moved = moveToolAttachmentsToUser(input);
        const movedSources = sourcesAfterAttachmentMove(input, input.map((_, i) => i), moved);
        const out = enforceRoleAlternation(moved);
        const sources = sourcesAfterAlternation(moved, movedSources, out);
        expect(sources).toHaveLength(out.length);
        for (let k = 1; k < sources.length; k++) expect(sources[k]).toBeGreaterThanOrEqual(sources[k - 1]);
        out.forEach((message, k) => {
          const held = mentioned(message);
          // A moved attachment comes after the whole block of results, so it maps after all of them.
          if (held.length > 0) expect(sources[k]).toBe(Math.max(...held, k > 0 ? sources[k - 1] : -1));
          // The "(conversation continued)" opener holds nothing and belongs with the turn it opens.
          else expect(sources[k]).toBe(sources[k + 1]);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('an attachment turn after a block of tool results maps to the last result of the block', () => {
    const input = deepFreeze(history(['system', 'user', 'assistant+calls', 'tool+image', 'tool', 'user']));
    const moved = moveToolAttachmentsToUser(input);
    expect(moved.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user', 'user']);
    expect(sourcesAfterAttachmentMove(input, [0, 1, 2, 3, 4, 5], moved)).toEqual([0, 1, 2, 3, 4, 4, 5]);
  });
});
