// Which suites CI runs on the Node majors after the main run on Node 20 (scripts/test-on-node.mjs
// runs them, scripts/sum-test-reports.mjs expects their reports). Read by both, so the plan is
// declared once.
//
// Why not every suite on every major: the whole repository's suites take ~13 minutes per extra
// major on a 2-core machine, which alone would spend half of CI's 25-minute budget. Instead:
// - the portable core (schema, governor and its dialects, ai-sdk, langchain, tools-core) runs on
//   Node 22 and 24 in the runtime job (tooling/runtimes: the conformance subset and the dialect
//   smoke test, byte for byte against Node 20, alongside Bun, Deno, workerd, edge-runtime and
//   Chromium), and the pack smoke test runs every package's CommonJS and ESM builds on 20/22/24;
// - the suites against the current peer majors (`vitest.majors.config.ts`: openai 7, ai 7) run on
//   Node 22, the version they need (the pack smoke test runs consumers of openai 6/7 and ai 6/7 on
//   20, 22 and 24; running these suites on 24 as well cost ~4.5 minutes of CI's budget);
// - the suites whose code talks to Node's own process, file-lock, socket and child-process APIs —
//   where a new major changes behaviour — run on one newer major each, split so the two runs take
//   about as long: the exec sandbox, PostgreSQL and sessions' file locks on 24 (the newest LTS),
//   MCP's stdio servers on 22 (beside the peer-majors suites).
// `node scripts/test-on-node.mjs <major> --all` still runs every suite on any major.

/** Package directories (relative to the repository root) whose unit suite runs on each major. */
export const SUITES_ON_MAJOR = {
  22: ['packages/mcp'],
  24: ['packages/postgres', 'packages/tools', 'packages/session'],
};

/** The majors on which every package with a `vitest.majors.config.ts` also runs that suite. */
export const PEER_MAJORS_ON = [22];

/**
 * The report variants CI expects from `dir` (`relative` to the root), besides its Node 20 report:
 * `node<N>` where its unit suite runs on N, `node<N>-majors` where its peer-majors suite does.
 */
export function expectedVariants(dir, hasMajorsConfig, majors = Object.keys(SUITES_ON_MAJOR).map(Number)) {
  const out = [];
  for (const major of majors) {
    if ((SUITES_ON_MAJOR[major] ?? []).includes(dir)) out.push(`node${major}`);
    if (hasMajorsConfig && PEER_MAJORS_ON.includes(major)) out.push(`node${major}-majors`);
  }
  return out;
}
