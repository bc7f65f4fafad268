// The 16 recorded third-party sessions in fixtures/transcripts (see its README): loading,
// the prefixes the suite governs, and the budgets it governs them at.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';

/** Folder of the recorded transcripts (`$NANOBOT_FIXTURES_DIR/transcripts`). */
export function transcriptsDir(): string {
  const shared = process.env.NANOBOT_FIXTURES_DIR;
  if (!shared) throw new Error('NANOBOT_FIXTURES_DIR is not set (vitest.shared.ts sets it)');
  return join(shared, 'transcripts');
}

/** Transcript file names, sorted (MANIFEST.json excluded). */
export function transcriptFiles(): string[] {
  return readdirSync(transcriptsDir())
    .filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json')
    .sort();
}

/** One transcript, deep-frozen so any mutation by the code under test throws. */
export function loadTranscript(file: string): readonly Message[] {
  return deepFreeze(JSON.parse(readFileSync(join(transcriptsDir(), file), 'utf8')) as Message[]);
}

/** The MANIFEST.json entry of a transcript (provenance, stats, defect examples, markers). */
export function manifestEntry(file: string): { stats: { defect_counts: Record<string, number>; defect_examples: Record<string, unknown[]> }; conversion: { markers: { kind: string; message_index?: number; errorMessage?: string }[] } } {
  const manifest = JSON.parse(readFileSync(join(transcriptsDir(), 'MANIFEST.json'), 'utf8')) as { transcripts: Record<string, any> };
  const entry = manifest.transcripts[file];
  if (!entry) throw new Error(`MANIFEST.json has no entry for ${file}`);
  return entry;
}

/** Lengths of every prefix that ends at a user turn (the requests a client would send). */
export function userTurnPrefixLengths(messages: readonly Message[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') out.push(i + 1);
  });
  return out;
}

/**
 * Every how-many-th user-turn prefix the suite governs: 1 (all of them) with
 * `NANOBOT_EXHAUSTIVE=1` (`pnpm test:exhaustive`), else 5 to keep `pnpm test` fast.
 */
export function prefixStride(): number {
  return process.env.NANOBOT_EXHAUSTIVE === '1' ? 1 : 5;
}

/**
 * Ends of the prefixes the suite governs: every {@link prefixStride}-th prefix that ends at a
 * user turn (deterministic, counted from the first), the last such prefix and the whole session.
 */
export function sampledPrefixEnds(messages: readonly Message[]): number[] {
  const all = userTurnPrefixLengths(messages);
  const stride = prefixStride();
  const picked = all.filter((_, k) => k % stride === 0);
  if (all.length > 0) picked.push(all[all.length - 1]);
  picked.push(messages.length);
  return [...new Set(picked)].sort((a, b) => a - b);
}

/** A named input budget of the suite; `null` means no budget (repairs only). */
export interface SuiteBudget {
  label: string;
  tokens: number | null;
}

/** The input budgets the issue asks for: 8k, 32k, 128k tokens, and none (200k too when exhaustive). */
export const SUITE_BUDGETS: readonly SuiteBudget[] = [
  { label: '8k', tokens: 8_000 },
  { label: '32k', tokens: 32_000 },
  { label: '128k', tokens: 128_000 },
  ...(process.env.NANOBOT_EXHAUSTIVE === '1' ? [{ label: '200k', tokens: 200_000 }] : []),
  { label: 'none', tokens: null },
];

/**
 * Govern options whose input budget is exactly `tokens` (`contextBlockLimit` overrides the
 * window arithmetic), or none at all.
 */
export function budgetOptions(tokens: number | null): { contextWindowTokens?: number; contextBlockLimit?: number } {
  return tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
}

/**
 * Every request point of the recorded sessions where the model waits on a tool result of at
 * least `minChars` characters: the history ends with that result (the last of its step).
 */
export function waitingOnResultPoints(minChars = 400): { file: string; end: number }[] {
  const points: { file: string; end: number }[] = [];
  for (const file of transcriptFiles()) {
    const history = loadTranscript(file);
    for (let end = 1; end <= history.length; end++) {
      const last = history[end - 1];
      if (last.role !== 'tool' || typeof last.content !== 'string' || last.content.length < minChars) continue;
      if (end < history.length && history[end].role === 'tool') continue;
      points.push({ file, end });
    }
  }
  return points;
}
