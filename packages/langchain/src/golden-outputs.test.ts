// The before/after comparison of issue 31 for the LangChain adapter: governBaseMessages and one
// middleware model call (a fresh middleware: no carried cut plan) on sampled user-turn prefixes
// of the 16 recorded sessions at 8k / 32k / 128k / no window hash to what the code before the
// pipeline redesign produced (test/golden/outputs.json). NANOBOT_RECORD_GOLDEN=1 re-records
// (only for a behaviour change an issue asks for).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { afterAll, describe, expect, it } from 'vitest';
import { governBaseMessages } from './govern-base-messages.js';
import { governorMiddleware } from './governor-middleware.js';
import { loadTranscript, toBaseMessages, transcriptFiles } from './test-support/transcripts.js';

const file = join(import.meta.dirname, '..', 'test', 'golden', 'outputs.json');
const record = process.env.NANOBOT_RECORD_GOLDEN === '1';
const recorded = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[]> : {};
const got: Record<string, string[]> = {};
const BUDGETS: readonly (number | null)[] = [8_000, 32_000, 128_000, null];
const hash = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

function prefixEnds(messages: readonly BaseMessage[]): number[] {
  const users = messages.flatMap((m, i) => (m.type === 'human' ? [i + 1] : []));
  return [...new Set([...users.filter((_, k) => k % 10 === 0), messages.length])];
}

type WrapModelCall = (request: Record<string, unknown>, handler: (r: Record<string, unknown>) => unknown) => unknown;

describe.each(transcriptFiles())('golden outputs of %s', (name) => {
  const history = toBaseMessages(loadTranscript(name));
  it.each(BUDGETS.map((t) => [t ?? 'none', t] as const))('at %s: governBaseMessages and the middleware give the recorded outputs', async (label, tokens) => {
    const options = tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
    const hashes: string[] = [];
    for (const end of prefixEnds(history)) {
      const prefix = history.slice(0, end);
      hashes.push(hash(governBaseMessages(prefix, options)));
      const system = prefix[0]?.type === 'system' ? prefix[0] as SystemMessage : undefined;
      const request = { messages: system === undefined ? prefix : prefix.slice(1), systemMessage: system ?? new SystemMessage(''), tools: [] };
      const wrap = (governorMiddleware(options) as unknown as { wrapModelCall: WrapModelCall }).wrapModelCall;
      const sent = await wrap(request, (r) => r) as { messages: BaseMessage[]; systemMessage: BaseMessage };
      hashes.push(hash([sent.systemMessage, sent.messages]));
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
