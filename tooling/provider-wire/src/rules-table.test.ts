import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_GROUPS, rulesTable } from './rules-table.js';

describe('rules table', () => {
  it('is what README.md lists (regenerate with `npx tsx scripts/rules-table.ts --write`)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const listed = readme.slice(readme.indexOf('<!-- rules:start -->\n') + '<!-- rules:start -->\n'.length, readme.indexOf('\n<!-- rules:end -->'));
    expect(listed).toBe(rulesTable());
  });

  it('gives every rule a unique id, its provider\'s wording and an http(s) source', () => {
    const rules = RULE_GROUPS.flatMap((g) => g.rules);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    for (const r of rules) {
      expect(r.id).toMatch(/^[a-z-]+\/[a-z0-9-]+$/);
      expect(r.wording.length, r.id).toBeGreaterThan(10);
      expect(r.source, r.id).toMatch(/^https:\/\//);
    }
  });
});
