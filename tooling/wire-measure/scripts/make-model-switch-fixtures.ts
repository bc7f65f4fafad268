// Writes fixtures/model-switch/*.json from src/model-switch-fixtures.ts (deterministic: the same
// bytes every run). Usage: pnpm --filter @nanobot-internal/wire-measure fixtures
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MODEL_SWITCH_FIXTURES, renderFixture } from '../src/model-switch-fixtures.js';

const out = resolve(import.meta.dirname, '..', '..', '..', 'fixtures', 'model-switch');
mkdirSync(out, { recursive: true });
for (const [name, f] of Object.entries(MODEL_SWITCH_FIXTURES)) writeFileSync(join(out, `${name}.json`), renderFixture(f));
console.log(`wrote ${Object.keys(MODEL_SWITCH_FIXTURES).length} fixtures to ${out}`);
