// The 16 recorded real sessions in fixtures/transcripts: whatever they hold, the governed copy
// must be a legal request (both providers), fit the budget, and — with no window and no size
// limit — keep every recorded tool result (reused ids included).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';
import { enforceRoleAlternation } from './steps/target/enforce-role-alternation.js';
import { govern, type GovernOptions } from './govern.js';
import { inputBudget } from './sizing/input-budget.js';
import { promptTokens } from './sizing/estimate.js';
import { MemoryArtifactStore } from './offload/memory-artifact-store.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();

const CONFIGS: Record<string, GovernOptions> = {
  'no window, no size limit': { maxToolResultChars: 0 },
  '200k window': { contextWindowTokens: 200_000, maxOutputTokens: 8_192 },
  '32k window, 4k results, offload': { contextWindowTokens: 32_000, maxOutputTokens: 4_096, maxToolResultChars: 4_000 },
  '8k window, in flight from the middle': { contextWindowTokens: 8_000, maxOutputTokens: 1_024, maxToolResultChars: 2_000 },
};

describe.each(files)('transcript %s', (file) => {
  const history = deepFreeze(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[]);

  it.each(Object.entries(CONFIGS))('%s: legal and within budget', (_name, config) => {
    const options: GovernOptions = {
      ...config,
      artifactStore: new MemoryArtifactStore(),
      sessionKey: file,
      inflightStartIndex: Math.floor(history.length / 2),
      compactedToolCallIds: new Set(),
    };
    const { messages, report } = govern(history, options);
    expect(checkLegality(messages)).toEqual([]);
    const budget = inputBudget(options);
    const request = enforceRoleAlternation(messages);
    expect(checkLegality(request, { request: true })).toEqual([]);
    if (budget > 0) {
      // Fits, unless the system prompt and the last user turn alone do not (one session has a
      // 51k-character pasted `find .` output as its last user message): then nothing else is kept.
      const lastUser = history.findLast((m) => m.role === 'user')!;
      const floor = promptTokens([...history.filter((m) => m.role === 'system'), lastUser], { tools: null });
      expect(report.tokensAfter!).toBeLessThanOrEqual(Math.max(budget, floor));
    }
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('keeps every recorded tool result when nothing needs cutting', () => {
    const { messages } = govern(history, { maxToolResultChars: 0 });
    const kept = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.content));
    const declared = new Set(history.flatMap((m) => (Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => c.id) : [])));
    const lost = history.filter(
      (m) => m.role === 'tool' && declared.has(m.tool_call_id as string) && typeof m.content === 'string' && m.content.trim() !== '' && !kept.has(m.content),
    );
    expect(lost.map((m) => m.tool_call_id)).toEqual([]);
  });
});
