// The governor suite checks the governed copies of the 16 recorded sessions in our message
// model; here the same copies (whole transcript and every prefix ending at a user turn, at
// input budgets of 8k, 32k, 128k, 200k tokens and none) go through the providers' real
// conversions and are checked against each API's wire rules.
//
// Every copy must be accepted by both. Two OpenAI rules were once broken by the conversion (not
// the governor) and have their own cases so a regression names itself:
//  - aborted turns recorded as `{role: 'assistant', content: null}` (no calls) must not go out
//    with `content: null`; OpenAI answers 400 "Invalid value for 'content': expected a string, got
//    null." (every pi-mono session);
//  - a tool result with an image part (pi `read` of a PNG) must not keep the image in the `tool`
//    message; OpenAI accepts only text parts there.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { enforceRoleAlternation, govern } from '@nanobot/governor';
import { toAnthropicMessages } from '@nanobot/providers/anthropic';
import { toOpenAIMessages } from '@nanobot/providers/openai';
import { anthropicWireViolations } from './anthropic-wire-rules.js';
import { openAIWireViolations } from './openai-wire-rules.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const BUDGETS: [string, number | null][] = [['8k', 8_000], ['32k', 32_000], ['128k', 128_000], ['200k', 200_000], ['none', null]];

const NULL_CONTENT = "Invalid value for 'content': expected a string, got null.";
const TOOL_IMAGE = 'tool content must be a string or text parts';

interface Sent {
  where: string;
  anthropic: string[];
  openai: string[];
}

const cache = new Map<string, Sent[]>();

/** Every governed request of one transcript, converted both ways, with its wire violations. */
function sent(file: string): Sent[] {
  const hit = cache.get(file);
  if (hit) return hit;
  const messages = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
  const ends = [...new Set([...messages.flatMap((m, i) => (m.role === 'user' ? [i + 1] : [])), messages.length])];
  const out: Sent[] = [];
  for (const [label, tokens] of BUDGETS) {
    for (const end of ends) {
      const options = tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
      const request = enforceRoleAlternation(govern(messages.slice(0, end), options).messages);
      out.push({
        where: `[0,${end}) at ${label}`,
        anthropic: anthropicWireViolations(toAnthropicMessages(request).messages),
        openai: openAIWireViolations(toOpenAIMessages(request)),
      });
    }
  }
  cache.set(file, out);
  return out;
}

describe('governed recorded sessions through the real provider conversions', () => {
  it.each(files)('%s: every request is accepted by the Anthropic and the OpenAI wire rules', { timeout: 120_000 }, (file) => {
    const all = sent(file);
    expect(all.length).toBeGreaterThan(0);
    for (const s of all) {
      expect(s.anthropic, s.where).toEqual([]);
      expect(s.openai, s.where).toEqual([]);
    }
  });

  const pi = files.filter((f) => f.startsWith('badlogic-pi-mono__'));
  it.each(pi)('%s: an aborted assistant turn does not go to OpenAI with content null', { timeout: 120_000 }, (file) => {
    const messages = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
    // The case is only meaningful while the recording still has such a turn.
    expect(messages.some((m) => m.role === 'assistant' && m.content === null && !(m.tool_calls ?? []).length)).toBe(true);
    for (const s of sent(file)) expect(s.openai.filter((v) => v.endsWith(NULL_CONTENT)), s.where).toEqual([]);
  });

  it('badlogic-pi-mono__session-20251224-compact.json: an image tool result does not go to OpenAI inside the tool message', { timeout: 120_000 }, () => {
    const file = 'badlogic-pi-mono__session-20251224-compact.json';
    const messages = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
    expect(messages.some((m) => m.role === 'tool' && Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'))).toBe(true);
    for (const s of sent(file)) expect(s.openai.filter((v) => v.endsWith(TOOL_IMAGE)), s.where).toEqual([]);
  });

  it('the OpenAI checker is not blind: the raw recordings with wire defects are rejected', () => {
    const raw = (f: string) => openAIWireViolations(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[]);
    expect(raw('All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json').some((v) => v.includes('did not have response messages'))).toBe(true);
    expect(raw('badlogic-pi-mono__large-session.json').some((v) => v.includes('did not have response messages'))).toBe(true);
    expect(raw('marot-spotter__cc-fa812bfe.json')).toEqual([]);
  });
});
