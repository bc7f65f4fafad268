// The published entries as a bundler for a Worker, an edge function or a page sees them: no
// module any entry reaches imports a node:* module or uses createRequire, so the fetch-based
// providers (the SDKs are fetch-based) bundle for every runtime. The SDKs, jsonrepair and our
// own packages are the only bare imports.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { reachableSources } from '@nanobot-internal/test-support';
import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '..');
const ALLOWED = /^(@nanobot\/(schema|governor)|openai|@anthropic-ai\/sdk|@aws-sdk\/client-bedrock-runtime|jsonrepair)(\/|$)/;

const entries = Object.entries(manifest.exports).map(([subpath, conditions]) => ({ subpath, source: conditions.source }));

describe('the entries', () => {
  it('are ., ./openai, ./anthropic, ./openai-responses, ./bedrock and ./testing', () => {
    expect(entries.map((e) => e.subpath)).toEqual(['.', './openai', './anthropic', './openai-responses', './bedrock', './testing']);
  });

  for (const { subpath, source } of entries) {
    it(`${subpath} reaches no node:* module and no createRequire (bundles for Workers, edge functions, browsers)`, () => {
      const { files, bare, createRequire } = reachableSources(root, source);
      expect(files.length).toBeGreaterThan(1);
      expect([...bare].filter((s) => !ALLOWED.test(s))).toEqual([]);
      expect(createRequire).toEqual([]);
    });
  }

  it("./anthropic names ids Anthropic refuses by the schema's pure sha1, not node:crypto", () => {
    const { files } = reachableSources(root, 'src/anthropic.ts');
    const request = files.find((f) => f.endsWith('/anthropic-request.ts'));
    expect(request).toBeDefined();
    expect(readFileSync(request!, 'utf8')).toMatch(/import \{[^}]*\bsha1Hex\b[^}]*\} from '@nanobot\/schema'/);
  });
});
