// `node scripts/bench.mjs provider-rules`: issue 25's measurement, printed as rejection ratios
// per route and rule. All request points by default; NANOBOT_PROVIDER_RULES_STRIDE=N for every
// N-th point of the recorded sessions (the sampled size `pnpm test` runs is 50);
// NANOBOT_PROVIDER_RULES_TARGET=route governs each route with its provider's target (default 'any');
// NANOBOT_PROVIDER_RULES_SHARDS=N splits the run over N child processes (a loaded machine gives
// each its share of CPU) and joins their counts. Nothing here gates on time.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { formatMeasurement, measureProviderRules, mergeMeasurements } from '../src/index.js';
import type { Measurement } from '../src/index.js';

// The AI SDK warns on stderr for every replayed part it adapts; the report says what matters.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const stride = Number(process.env.NANOBOT_PROVIDER_RULES_STRIDE ?? '1') || 1;
const shards = Number(process.env.NANOBOT_PROVIDER_RULES_SHARDS ?? '1') || 1;
const shardIndex = process.env.NANOBOT_PROVIDER_RULES_SHARD_INDEX;
const examples = process.env.NANOBOT_PROVIDER_RULES_EXAMPLES === '1';
// NANOBOT_PROVIDER_RULES_TARGET=route: each route governed with its provider's target (default 'any': the baseline).
const target = process.env.NANOBOT_PROVIDER_RULES_TARGET === 'route' ? 'route' : 'any';

if (shardIndex !== undefined) {
  // A child: measure one shard and write its counts where the parent asked.
  const m = await measureProviderRules({ stride, target, shard: { index: Number(shardIndex), count: shards } });
  writeFileSync(process.env.NANOBOT_PROVIDER_RULES_OUT!, JSON.stringify(m));
} else if (shards > 1) {
  const files = Array.from({ length: shards }, (_, i) => join(tmpdir(), `provider-rules-${process.pid}-${i}.json`));
  await Promise.all(files.map((out, i) => new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename], { stdio: 'inherit', env: { ...process.env, NANOBOT_PROVIDER_RULES_SHARD_INDEX: String(i), NANOBOT_PROVIDER_RULES_OUT: out } });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`shard ${i} exited with ${code}`))));
  })));
  const parts = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Measurement);
  for (const f of files) rmSync(f, { force: true });
  console.log(formatMeasurement(mergeMeasurements(parts), { examples }));
} else {
  const m = await measureProviderRules({
    stride,
    target,
    onProgress: (done, total) => {
      if (done % 25 === 0 || done === total) process.stderr.write(`  ${done}/${total} request points\n`);
    },
  });
  console.log(formatMeasurement(m, { examples }));
}
