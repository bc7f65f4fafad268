// Keeps the README example honest: the block compiles under --strict (with
// exactOptionalPropertyTypes) and runs, against a local OpenAI wire server.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { compileStrict } from '@nanobot-internal/test-support/compile-strict';
import { startOpenAIServer } from './test-support/wire-server.js';

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

it('README example runs', async () => {
  const server = await startOpenAIServer(() => ({ role: 'assistant', content: 'Still here.' }));
  vi.stubEnv('OPENAI_BASE_URL', `${server.url}/v1`);
  vi.stubEnv('OPENAI_API_KEY', 'test');
  const logs: unknown[][] = [];
  vi.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args));
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    await server.close();
  }
  expect(logs).toEqual([[['backfillMissingToolResults']], ['Still here.']]);
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0].violations).toEqual([]);
});
