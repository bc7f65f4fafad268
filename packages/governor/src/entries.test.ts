// The published entries as a bundler for a Worker, an edge function or a page sees them: every
// module the main entry and its /anthropic, /responses and /dialect subpaths reach imports no
// node:* module and uses no createRequire; only /node (the file store) may.
import { join, resolve } from 'node:path';
import { reachableSources } from '@nanobot-internal/test-support';
import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '..');

const reach = (entry: string) => reachableSources(root, entry);

const entries = Object.entries(manifest.exports).map(([subpath, conditions]) => ({ subpath, source: conditions.source }));

describe('the entries', () => {
  it('are ., ./anthropic, ./responses, ./dialect and ./node', () => {
    expect(entries.map((e) => e.subpath)).toEqual(['.', './anthropic', './responses', './dialect', './node']);
  });

  for (const { subpath, source } of entries.filter((e) => e.subpath !== './node')) {
    it(`${subpath} reaches no node:* module and no createRequire (runs in Workers, edge functions, browsers)`, () => {
      const { files, bare, createRequire } = reach(source);
      expect(files.length).toBeGreaterThan(subpath === '.' ? 60 : 1);
      expect([...bare].filter((s) => s.startsWith('node:') || !s.startsWith('@nanobot/'))).toEqual([]);
      expect(createRequire).toEqual([]);
    });
  }

  it('./node holds the file store, which does use node:fs', async () => {
    const { bare } = reach(join('src', 'node.ts'));
    expect(bare.has('node:fs')).toBe(true);
    const node = await import('./node.js');
    const main = await import('./index.js');
    expect(Object.keys(node)).toEqual(['FileArtifactStore']);
    expect('FileArtifactStore' in main).toBe(false);
    expect(typeof main.MemoryArtifactStore).toBe('function');
  });
});
