// Records the governor's before/after golden (see src/test-support/node/golden-cases.ts): the hash of
// every governed request in test/golden/govern-outputs.json and a few whole outputs in
// test/golden/full/. Run it only to re-record on purpose (a behaviour change an issue asks for):
//
//   NANOBOT_FIXTURES_DIR=fixtures node --conditions=source --import tsx packages/governor/scripts/record-golden.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FULL_GOLDENS, dialectCases, governCases, recordAll } from '../src/test-support/node/golden-cases.js';
import { loadTranscript } from '../src/test-support/node/transcripts.js';

const dir = join(import.meta.dirname, '..', 'test', 'golden');
mkdirSync(join(dir, 'full'), { recursive: true });
const t0 = performance.now();
const hashes = { govern: recordAll(governCases()), dialects: recordAll(dialectCases()) };
writeFileSync(join(dir, 'govern-outputs.json'), `${JSON.stringify(hashes, null, 1)}\n`);
for (const g of FULL_GOLDENS) {
  const c = governCases().find((x) => x.name === g.case)!;
  const out = c.run(loadTranscript(g.file));
  writeFileSync(join(dir, 'full', `${g.file.replace(/\.json$/, '')} -- ${g.case.replace(/\s+/g, '-')}.json`), `${JSON.stringify(out, null, 1)}\n`);
}
const count = (r: Record<string, string[]>) => Object.values(r).reduce((n, h) => n + h.length, 0);
console.log(`recorded ${count(hashes.govern)} govern and ${count(hashes.dialects)} dialect outputs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
