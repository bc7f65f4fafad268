// scripts/node-majors-plan.mjs, CI's plan of which suites run on Node 22 and 24: every directory it
// names is a package with a test script (a renamed or removed package would otherwise drop out
// of CI silently), each runtime-sensitive suite runs on at least one newer major, and the reports
// sum-test-reports expects are exactly the ones test-on-node writes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './workspace.js';

interface Plan {
  SUITES_ON_MAJOR: Record<string, string[]>;
  PEER_MAJORS_ON: number[];
  expectedVariants(dir: string, hasMajorsConfig: boolean, majors?: number[]): string[];
}
const plan = (await import(pathToFileURL(join(repoRoot, 'scripts', 'node-majors-plan.mjs')).href)) as Plan;

describe('the Node majors plan', () => {
  it('names only packages that exist and have a test script', () => {
    for (const dirs of Object.values(plan.SUITES_ON_MAJOR)) {
      for (const dir of dirs) {
        const manifest = join(repoRoot, dir, 'package.json');
        expect(existsSync(manifest), dir).toBe(true);
        expect((JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: { test?: string } }).scripts?.test, dir).toBeTruthy();
      }
    }
  });
  it('runs the Node-API-bound suites (exec sandbox, sessions, MCP, PostgreSQL) on a newer major', () => {
    const covered = new Set(Object.values(plan.SUITES_ON_MAJOR).flat());
    for (const dir of ['packages/tools', 'packages/session', 'packages/mcp', 'packages/postgres']) expect(covered.has(dir), dir).toBe(true);
  });
  it('expects the peer-majors reports on 22 and the unit reports where the plan runs them', () => {
    expect(plan.expectedVariants('packages/ai-sdk', true, [22, 24])).toEqual(['node22-majors']);
    expect(plan.expectedVariants('packages/tools', false, [22, 24])).toEqual(['node24']);
    expect(plan.expectedVariants('packages/session', false, [22, 24])).toEqual(['node24']);
    expect(plan.expectedVariants('packages/mcp', false, [22, 24])).toEqual(['node22']);
    expect(plan.expectedVariants('packages/governor', false, [22, 24])).toEqual([]);
    // A local run without --variants expects nothing beyond Node 20's report.
    expect(plan.expectedVariants('packages/tools', false, [])).toEqual([]);
  });
  it('never asks for the peer-majors suites on a Node older than they need', () => {
    expect(plan.PEER_MAJORS_ON.every((m) => m >= 22)).toBe(true);
  });
});
