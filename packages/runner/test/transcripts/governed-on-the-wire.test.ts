// The governor suite checks the governed copies of the 16 recorded sessions in our message
// model; here the same copies (whole transcript and every prefix ending at a user turn, at
// input budgets of 8k, 32k, 128k, 200k tokens and none) go through the providers' real
// conversions and are checked against each API's wire rules.
//
// Anthropic: every copy is accepted. OpenAI: two rules are broken by the conversion, not by the
// governor; they are pinned as expected failures (`it.fails`) so the suite turns red once
// @nanobot/providers fixes them and the marks can go:
//  - aborted turns recorded as `{role: 'assistant', content: null}` (no calls) go out with
//    `content: null`; OpenAI answers 400 "Invalid value for 'content': expected a string, got
//    null." (every pi-mono session);
//  - a tool result with an image part (pi `read` of a PNG) stays in the `tool` message; OpenAI
//    accepts only text parts there.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { enforceRoleAlternation, govern } from '@nanobot/governor';
import { toAnthropicMessages } from '@nanobot/providers/anthropic';
import { toOpenAIMessages } from '@nanobot/providers/openai';
import { anthropicWireViolations } from './anthropic-wire-rules.js';
import { openAIWireViolations } from './openai-wire-rules.js';

const dir = join(process.env.NANOBOT_SHARED_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const BUDGETS: [string, number | null][] = [['8k', 8_000], ['32k', 32_000], ['128k', 128_000], ['200k', 200_000], ['none', null]];

const NULL_CONTENT = "Invalid value for 'content': expected a string, got null.";
const TOOL_IMAGE = 'tool content must be a string or text parts';
const KNOWN = [NULL_CONTENT, TOOL_IMAGE];

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

const without = (list: string[], known: string[]) => list.filter((v) => !known.some((k) => v.endsWith(k)));

describe('governed recorded sessions through the real provider conversions', () => {
  it.each(files)('%s: every request is accepted by the Anthropic wire rules, and by OpenAI except for the known conversion gaps', { timeout: 120_000 }, (file) => {
    const all = sent(file);
    expect(all.length).toBeGreaterThan(0);
    for (const s of all) {
      expect(s.anthropic, s.where).toEqual([]);
      expect(without(s.openai, KNOWN), s.where).toEqual([]);
    }
  });

  const pi = files.filter((f) => f.startsWith('badlogic-pi-mono__'));
  it.fails.each(pi)('%s: known providers gap: an aborted assistant turn goes to OpenAI with content null', { timeout: 120_000 }, (file) => {
    for (const s of sent(file)) expect(s.openai.filter((v) => v.endsWith(NULL_CONTENT)), s.where).toEqual([]);
  });

  it.fails('badlogic-pi-mono__session-20251224-compact.json: known providers gap: an image tool result goes to OpenAI inside the tool message', { timeout: 120_000 }, () => {
    for (const s of sent('badlogic-pi-mono__session-20251224-compact.json')) expect(s.openai.filter((v) => v.endsWith(TOOL_IMAGE)), s.where).toEqual([]);
  });

  it('the OpenAI checker is not blind: the raw recordings with wire defects are rejected', () => {
    const raw = (f: string) => openAIWireViolations(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[]);
    expect(raw('All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json').some((v) => v.includes('did not have response messages'))).toBe(true);
    expect(raw('badlogic-pi-mono__large-session.json').some((v) => v.includes('did not have response messages'))).toBe(true);
    expect(raw('marot-spotter__cc-fa812bfe.json')).toEqual([]);
  });
});
