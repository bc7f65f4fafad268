#!/usr/bin/env node
// Runs every benchmark (`packages/*/bench/*.bench.ts`, `apps/*/bench/*.bench.ts`,
// `tooling/*/bench/*.bench.ts`: e.g. tooling/runtimes' bundle sizes, tooling/wire-measure's
// `provider-rules`, issue 25's rejection measurement) one after the
// other with tsx and the "source" export condition, so benchmarks measure the TypeScript sources
// in one run each. The packages are built first (turbo: cached when up to date): a benchmark
// may measure the built JavaScript applications run (the governor's targets bench does).
// Benchmarks print ratios; nothing here gates on absolute time.
// Usage: node scripts/bench.mjs [substring-filter]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv[2] ?? '';
const files = [];
for (const group of ['packages', 'apps', 'tooling']) {
  for (const name of existsSync(join(root, group)) ? readdirSync(join(root, group)) : []) {
    const dir = join(root, group, name, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.bench.ts') && join(group, name, file).includes(filter)) files.push(join(dir, file));
    }
  }
}
if (files.length > 0) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'quiet-build.mjs'), '--packages='], { stdio: 'inherit', cwd: root });
  if (build.status !== 0) {
    console.error('the build failed: no benchmark ran');
    process.exit(1);
  }
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file.slice(root.length)}`);
  const res = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', file], { stdio: 'inherit', cwd: root });
  if (res.status !== 0) failed += 1;
}
console.log(`\nbenchmarks: ${files.length - failed} ran, ${failed} failed`);
process.exit(failed ? 1 : 0);
