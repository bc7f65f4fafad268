// What the guards cost. Prints absolute figures and ratios measured in this one run; asserts
// nothing about time. Run: node scripts/bench.mjs tools
import { readFile, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolContext } from '@nanobot/tools-core';
import { createGrepTool, createReadFileTool, isBlockedAddress, openWorkspaceFile, resolveWorkspacePath, scopeFor } from '@nanobot/tools';

async function time(label: string, n: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(50, n); i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const perOp = (performance.now() - start) / n;
  console.log(`${label.padEnd(48)} ${(perOp * 1000).toFixed(1).padStart(9)} µs/op`);
  return perOp;
}

const base = await mkdtemp(join(tmpdir(), 'nanobot-bench-'));
try {
  const ws = join(base, 'ws');
  await mkdir(join(ws, 'src'), { recursive: true });
  const text = Array.from({ length: 200 }, (_, i) => `line ${i} of some source text`).join('\n');
  await writeFile(join(ws, 'file.txt'), text);
  for (let i = 0; i < 200; i++) await writeFile(join(ws, 'src', `f${i}.ts`), `${text}\n${i % 10 === 0 ? 'NEEDLE' : ''}\n`);
  const ctx = createToolContext({ workspace: ws });
  const scope = scopeFor({}, ws)!;

  const plain = await time('fs.readFile (no guard)', 2000, () => readFile(join(ws, 'file.txt'), 'utf8'));
  const guarded = await time('resolve + O_NOFOLLOW open + fd re-check + read', 2000, async () => {
    const real = await resolveWorkspacePath(scope, 'file.txt', 'read');
    const { handle } = await openWorkspaceFile(scope, real, 'file.txt', 'read');
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  });
  const tool = await time('read_file tool (200 numbered lines)', 2000, () => createReadFileTool().execute({ path: 'file.txt' }, ctx));
  const grep = await time('grep tool over 200 files (files_with_matches)', 30, () => createGrepTool().execute({ pattern: 'NEEDLE' }, ctx));
  const ips = ['8.8.8.8', '10.1.2.3', '::ffff:127.0.0.1', '2606:4700::1111', '169.254.169.254'];
  let k = 0;
  const ssrf = await time('isBlockedAddress (mixed v4/v6)', 20000, () => isBlockedAddress(ips[k++ % ips.length]));

  console.log(`\nratio guarded open+read / plain readFile: ${(guarded / plain).toFixed(2)}x`);
  console.log(`ratio read_file tool / plain readFile:    ${(tool / plain).toFixed(2)}x`);
  console.log(`grep per file: ${((grep / 200) * 1000).toFixed(1)} µs; SSRF check: ${(ssrf * 1000).toFixed(2)} µs (${(ssrf / plain * 100).toFixed(1)}% of a readFile)`);
} finally {
  await rm(base, { recursive: true, force: true });
}
