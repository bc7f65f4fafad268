// `node scripts/bench.mjs provider-rules`: issue 25's measurement, printed as rejection ratios
// per route and rule. All request points by default; NANOBOT_PROVIDER_RULES_STRIDE=N for every
// N-th (the sampled size `pnpm test` runs is 10). Nothing here gates on time.
import { formatMeasurement, measureProviderRules } from '../src/index.js';

// The AI SDK warns on stderr for every replayed part it adapts; the report says what matters.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const stride = Number(process.env.NANOBOT_PROVIDER_RULES_STRIDE ?? '1') || 1;
const m = await measureProviderRules({
  stride,
  onProgress: (done, total) => {
    if (done % 25 === 0 || done === total) process.stderr.write(`  ${done}/${total} request points\n`);
  },
});
console.log(formatMeasurement(m, { examples: process.env.NANOBOT_PROVIDER_RULES_EXAMPLES === '1' }));
