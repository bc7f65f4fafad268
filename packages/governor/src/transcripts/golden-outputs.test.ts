// The before/after comparison of issue 31: every governed request of the golden cases (see
// test-support/node/golden-cases.ts) hashes to what the code before the pipeline redesign produced,
// and the whole outputs kept in test/golden/full/ are equal field by field. A failure names the
// session, the case and the first request that differs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULL_GOLDENS, dialectCases, governCases, recordFile } from '../test-support/node/golden-cases.js';
import { loadTranscript, transcriptFiles } from '../test-support/node/transcripts.js';

const dir = join(import.meta.dirname, '..', '..', 'test', 'golden');
const recorded = JSON.parse(readFileSync(join(dir, 'govern-outputs.json'), 'utf8')) as Record<'govern' | 'dialects', Record<string, string[]>>;

function firstDifferences(got: Record<string, string[]>, want: Record<string, string[]>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(want)) {
    const g = got[key] ?? [];
    const w = want[key];
    const at = w.findIndex((h, i) => g[i] !== h);
    if (at >= 0 || g.length !== w.length) out.push(`${key}: request ${at >= 0 ? at : w.length} of ${w.length} differs`);
  }
  return out;
}

describe.each(transcriptFiles())('golden outputs of %s', (file) => {
  const wanted = (group: 'govern' | 'dialects') => Object.fromEntries(Object.entries(recorded[group]).filter(([k]) => k.startsWith(`${file} | `)));

  it('govern: every case gives the recorded outputs', () => {
    const want = wanted('govern');
    expect(Object.keys(want).length).toBe(governCases().length);
    expect(firstDifferences(recordFile(file, governCases()), want)).toEqual([]);
  });

  it('governAnthropic and governResponses give the recorded outputs', () => {
    const want = wanted('dialects');
    expect(Object.keys(want).length).toBe(dialectCases().length);
    expect(firstDifferences(recordFile(file, dialectCases()), want)).toEqual([]);
  });
});

describe('whole golden outputs', () => {
  it.each(FULL_GOLDENS)('$file, $case: equal field by field', ({ file, case: name }) => {
    const c = governCases().find((x) => x.name === name)!;
    const want: unknown = JSON.parse(readFileSync(join(dir, 'full', `${file.replace(/\.json$/, '')} -- ${name.replace(/\s+/g, '-')}.json`), 'utf8'));
    expect(JSON.parse(JSON.stringify(c.run(loadTranscript(file))))).toEqual(want);
  });
});
