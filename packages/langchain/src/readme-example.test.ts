// Keeps the README example honest: the block compiles under --strict (with
// exactOptionalPropertyTypes) and runs as written.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { compileStrict } from '@nanobot-internal/test-support/compile-strict';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
// One folder per process: the suites run on several Node versions at once in CI.
const dir = join(packageDir, 'test-output', String(process.pid));
const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(packageDir, 'README.md'), 'utf8'))![1];
mkdirSync(dir, { recursive: true });
const file = join(dir, 'readme-example.ts');
writeFileSync(file, example);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('README example compiles under --strict', () => {
  expect(compileStrict([file])).toEqual([]);
}, 120_000);

it('README example runs and prints what the README says', async () => {
  const logs: unknown[][] = [];
  vi.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args));
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    vi.restoreAllMocks();
  }
  expect(logs).toEqual([
    [['human', 'ai', 'tool', 'human'], ['dropOrphanToolResults', 'backfillMissingToolResults']],
    ['Still here.'],
  ]);
});
