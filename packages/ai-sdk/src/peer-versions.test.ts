// Which AI SDK this run loads: the default run the devDependencies (ai 6, `@ai-sdk/*` 3: the V3
// language-model spec), the majors run (vitest.majors.config.ts, Node 22) the aliased ai 7 and
// `@ai-sdk/*` 4 (the V4 spec). Fails when an alias did not take effect, so the majors run cannot
// pass on the old majors by mistake.
import { readFileSync } from 'node:fs';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { governorMiddleware } from './governor-middleware.js';
import { mockModel } from './test-support/mock-model.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
const aliased = JSON.parse(process.env.NANOBOT_PEER_MAJORS ?? '{}') as Record<string, string>;
const major = (name: string) => Number((aliased[name] ?? manifest.devDependencies[name]).replace(/^\D*/, '').split('.')[0]);
// ai 6 speaks the V3 language-model spec, ai 7 V4; `@ai-sdk/*` 3 make V3 models, 4 make V4.
const spec = { ai: `v${major('ai') - 3}`, providers: `v${major('@ai-sdk/openai')}` };

describe('the AI SDK under test', () => {
  it(`is ai ${major('ai')} (wrapped models speak ${spec.ai}) with @ai-sdk/* ${major('@ai-sdk/openai')} (models speak ${spec.providers})`, () => {
    expect(wrapLanguageModel({ model: mockModel(), middleware: governorMiddleware() }).specificationVersion).toBe(spec.ai);
    expect(createOpenAI({ apiKey: 'k' }).chat('gpt-4o-mini').specificationVersion).toBe(spec.providers);
    expect(createAnthropic({ apiKey: 'k' })('claude-sonnet-4-5').specificationVersion).toBe(spec.providers);
  });
});
