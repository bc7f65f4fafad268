import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAssistantMessage } from './build-assistant-message.js';
import { externalLookupSignature, repeatedExternalLookupError } from './external-lookup.js';

interface Case {
  name: string;
  fn: string;
  input: any;
  expected: unknown;
  input_after?: any;
}

const file = join(process.env.NANOBOT_FIXTURES_DIR!, 'conformance', 'helpers', 'helpers.json');
const cases: Case[] = JSON.parse(readFileSync(file, 'utf8')).cases;
const owned = (fn: string) => cases.filter((c) => c.fn.replace(/\[sequence\]$/, '').split('.').pop() === fn);

/** Cases where we deliberately differ from the reference, with the reason. None so far. */
const DEVIATIONS: Record<string, string> = {};

const counts = { passed: 0, deviations: 0 };

describe('conformance: helpers owned by the runner', () => {
  it('has the expected number of owned cases', () => {
    expect(owned('build_assistant_message')).toHaveLength(6);
    expect(owned('external_lookup_signature')).toHaveLength(8);
    expect(owned('repeated_external_lookup_error')).toHaveLength(1);
  });

  it.each(owned('build_assistant_message').map((c) => [c.name, c] as const))('%s', (name, c) => {
    const k = c.input.kwargs;
    const got = buildAssistantMessage({ content: k.content, toolCalls: k.tool_calls, reasoningContent: k.reasoning_content, thinkingBlocks: k.thinking_blocks });
    expect(name in DEVIATIONS).toBe(false);
    expect(got).toEqual(c.expected);
    counts.passed += 1;
  });

  it.each(owned('external_lookup_signature').map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(externalLookupSignature(c.input.tool_name, c.input.arguments)).toEqual(c.expected);
    counts.passed += 1;
  });

  it.each(owned('repeated_external_lookup_error').map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const seen = new Map<string, number>(Object.entries(c.input.seen_counts as Record<string, number>));
    const got = (c.input.calls as [string, unknown][]).map(([tool, args]) => repeatedExternalLookupError(tool, args, seen));
    expect(got).toEqual(c.expected);
    expect(Object.fromEntries(seen)).toEqual(c.input_after.seen_counts);
    counts.passed += 1;
  });

  it('counts', () => {
    expect(counts.passed + counts.deviations).toBe(15);
  });
});
