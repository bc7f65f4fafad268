import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { targetsTable } from './test-support/targets-table.js';

describe('README', () => {
  it('holds the table of targets rendered from the declared profiles (node --conditions=source --import tsx scripts/targets-table.ts prints it)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(targetsTable());
  });
});
