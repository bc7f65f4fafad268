// The before/after comparison of issue 31 for the AI SDK adapter: governModelMessages and one
// middleware call (a fresh middleware: no carried cut plan) on sampled user-turn prefixes of the
// 16 recorded sessions at 8k / 32k / 128k / no window hash to what the code before the
// pipeline redesign produced (test/golden/outputs.json). NANOBOT_RECORD_GOLDEN=1 re-records
// (only for a behaviour change an issue asks for).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { governorMiddleware, type GovernedCallOptions } from './governor-middleware.js';
import { mockModel } from './test-support/mock-model.js';
import { loadTranscript, toModelMessages, transcriptFiles } from './test-support/transcripts.js';

const file = join(import.meta.dirname, '..', 'test', 'golden', 'outputs.json');
const record = process.env.NANOBOT_RECORD_GOLDEN === '1';
const recorded = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[]> : {};
const got: Record<string, string[]> = {};
const BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];
const hash = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

function prefixEnds(messages: readonly ModelMessage[]): number[] {
  const users = messages.flatMap((m, i) => (m.role === 'user' ? [i + 1] : []));
  return [...new Set([...users.filter((_, k) => k % 10 === 0), messages.length])];
}

/** The provider-level prompt the middleware sees for a ModelMessage list. */
function v3(messages: readonly ModelMessage[]): GovernedCallOptions['prompt'] {
  return messages.map((m) => (m.role === 'system' || Array.isArray(m.content) ? m : { ...m, content: [{ type: 'text', text: m.content }] })) as GovernedCallOptions['prompt'];
}

describe.each(transcriptFiles())('golden outputs of %s', (name) => {
  const history = toModelMessages(loadTranscript(name));
  it.each(BUDGETS.map((t) => [t ?? 'none', t] as const))('at %s: governModelMessages and the middleware give the recorded outputs', async (label, tokens) => {
    const options = tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
    const hashes: string[] = [];
    for (const end of prefixEnds(history)) {
      const prefix = history.slice(0, end);
      hashes.push(hash(governModelMessages(prefix, options)));
      const out = await governorMiddleware(options).transformParams!({ type: 'generate', params: { prompt: v3(prefix) }, model: mockModel() });
      hashes.push(hash(out.prompt));
    }
    const key = `${name} | ${label}`;
    got[key] = hashes;
    if (!record) {
      expect(hashes.length, key).toBe(recorded[key]?.length);
      expect(hashes.findIndex((h, i) => recorded[key][i] !== h), key).toBe(-1);
    }
  }, 300_000);
});

afterAll(() => {
  if (!record) return;
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...recorded, ...got }, null, 1)}\n`);
});
