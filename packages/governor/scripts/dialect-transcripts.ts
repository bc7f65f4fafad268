// Every prefix ending at a user turn of the 16 recorded sessions, plus each whole session, at
// 8k / 32k / 128k / no budget, through governAnthropic and governResponses on the sessions
// converted to each dialect: prints the requests that break a rule (the vitest suite samples
// the prefixes; this runs them all). Exits 1 when any request has a problem.
// Usage: node --conditions=source --import tsx packages/governor/scripts/dialect-transcripts.ts
import { resolve } from 'node:path';
import { loadTranscript, transcriptFiles } from '../src/test-support/node/transcripts.js';
import { DIALECT_BUDGETS, anthropicSession, checkAnthropicRequest, checkResponsesRequest, responsesSession } from '../src/test-support/dialect-suite.js';

process.env.NANOBOT_FIXTURES_DIR ??= resolve(import.meta.dirname, '..', '..', '..', 'fixtures');
let requests = 0;
let broken = 0;
let unfittable = 0;
const t0 = performance.now();
for (const file of transcriptFiles()) {
  const history = loadTranscript(file);
  const a = anthropicSession(history);
  const r = responsesSession(history);
  const runs: [string, () => { problems: string[]; unfittable: boolean }][] = [];
  for (const tokens of DIALECT_BUDGETS) {
    for (const n of [...a.prefixes, a.messages.length]) runs.push([`anthropic ${n} @${tokens ?? 'none'}`, () => checkAnthropicRequest(a.system, a.messages.slice(0, n), tokens)]);
    for (const n of [...r.prefixes, r.input.length]) runs.push([`responses ${n} @${tokens ?? 'none'}`, () => checkResponsesRequest(r.input.slice(0, n), tokens)]);
  }
  let fileBroken = 0;
  for (const [label, run] of runs) {
    const { problems, unfittable: u } = run();
    requests++;
    if (u) unfittable++;
    if (problems.length > 0) {
      broken++;
      fileBroken++;
      if (fileBroken <= 3) console.log(`${file} ${label}: ${problems.slice(0, 3).join(' | ')}`);
    }
  }
  console.log(`${file}: ${runs.length} requests, ${fileBroken} with problems`);
}
console.log(`\n${requests} governed requests, ${broken} with problems, ${unfittable} where the system prompt and the newest user turn alone exceed the budget (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(broken > 0 ? 1 : 0);
