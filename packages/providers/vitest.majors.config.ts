// The suite again against `openai` 7 (installed beside openai 6 under an npm alias): every test
// file that mentions OpenAI (the OpenAI-compatible, Responses and Azure backends, createProvider,
// the fallback and vendor wire suites), unchanged, so both majors pass the same tests. Node 22
// only (openai 7's engines); run by `node scripts/test-on-node.mjs 22` in CI.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { peerMajorsConfig } from '../../vitest.shared.js';

const dir = import.meta.dirname;
const include = (readdirSync(join(dir, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.test.ts') && /openai/i.test(readFileSync(join(dir, 'src', f), 'utf8')))
  .map((f) => `src/${f}`)
  .sort();

export default defineConfig(peerMajorsConfig(dir, { openai: 'openai-v7' }, { include }));
