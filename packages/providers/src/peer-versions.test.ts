// Which `openai` this run loads: the default run the devDependency (openai 6), the majors run
// (vitest.majors.config.ts, Node 22) the aliased openai 7. Fails when an alias did not take
// effect, so the majors run cannot pass on the old major by mistake.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { VERSION } from 'openai/version';
import { describe, expect, it } from 'vitest';
import { OpenAICompatProvider } from './openai-compat-provider.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
const aliased = JSON.parse(process.env.NANOBOT_PEER_MAJORS ?? '{}') as Record<string, string>;
const expected = aliased.openai ?? manifest.devDependencies.openai.replace(/^\D*/, '');

describe('the openai SDK under test', () => {
  it(`is openai ${expected.split('.')[0]}.x, for the providers as for this test`, () => {
    expect(VERSION.split('.')[0]).toBe(expected.split('.')[0]);
    // The provider's own import of `openai` is this module: the client it makes is of this class.
    const provider = new OpenAICompatProvider({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    expect(provider.client).toBeInstanceOf(OpenAI);
  });
});
