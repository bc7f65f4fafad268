import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { toAnthropicMessages } from './anthropic-request.js';
import { toOpenAIMessages } from './openai-request.js';
import { deepFreeze } from '@nanobot-internal/test-support';

// Real recorded sessions (raw, ungoverned: orphans, duplicate ids, empty assistants, consecutive
// users). Both conversions must produce legal requests from them without losing text.
const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json');

function strings(value: unknown, out: Set<string>): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

describe('conversions over the 16 recorded transcripts', () => {
  it('found the transcripts', () => expect(files.length).toBe(16));
  for (const file of files) {
    it(file, () => {
      const messages = deepFreeze(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[]);
      const snapshot = JSON.stringify(messages);

      const anthropic = toAnthropicMessages(messages, { cacheControl: true });
      const turns = anthropic.messages;
      expect(turns[0].role).toBe('user');
      expect(turns.at(-1)!.role).toBe('user');
      const useIds: string[] = [];
      const resultIds: string[] = [];
      turns.forEach((turn, i) => {
        if (i > 0) expect(turn.role).not.toBe(turns[i - 1].role);
        expect(turn.content.length).toBeGreaterThan(0);
        for (const b of turn.content) {
          if (b.type === 'text') expect(b.text).not.toBe('');
          if (b.type === 'tool_use') useIds.push(b.id as string);
          if (b.type === 'tool_result') resultIds.push(b.tool_use_id as string);
        }
      });
      for (const id of [...useIds, ...resultIds]) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(new Set(useIds).size).toBe(useIds.length);
      const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
      const called = new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
      if ([...answered].every((id) => called.has(id!))) for (const id of resultIds) expect(useIds).toContain(id);
      const markers = JSON.stringify(anthropic).split('"cache_control"').length - 1;
      expect(markers).toBeLessThanOrEqual(2);

      // Lossless: every non-empty text of a kept message is somewhere in the Anthropic request.
      const sent = strings(anthropic, new Set());
      let lastKept = messages.length - 1;
      while (lastKept >= 0 && messages[lastKept].role === 'assistant') lastKept--;
      messages.slice(0, lastKept + 1).forEach((m) => {
        if (typeof m.content === 'string' && m.content.trim() !== '' && !/[\uD800-\uDFFF]/.test(m.content)) expect(sent.has(m.content)).toBe(true);
      });

      const openai = toOpenAIMessages(messages);
      openai.forEach((m, i) => {
        expect(m.content).not.toBe('');
        expect(Object.keys(m).every((k) => ['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'extra_content'].includes(k))).toBe(true);
        if (i > 0 && (m.role === 'user' || m.role === 'assistant')) expect(m.role).not.toBe(openai[i - 1].role);
        for (const c of m.tool_calls ?? []) expect(typeof JSON.parse(c.function.arguments)).toBe('object');
        // OpenAI: content is required except next to tool calls, and a tool message is text only.
        if (!(m.role === 'assistant' && m.tool_calls?.length)) expect(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0)).toBe(true);
        if (m.role === 'tool') expect(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.every((p) => p.type === 'text'))).toBe(true);
      });
      const images = (list: readonly Message[]) => list.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url').length;
      expect(images(openai)).toBe(images(messages));
      expect(openai.at(-1)!.role).not.toBe('assistant');

      expect(JSON.stringify(messages)).toBe(snapshot);
    });
  }
});
