import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOW_MARKER, pathsOutsideRepo } from './outside-repo-paths.js';
import { rel, repoRoot, sourceFiles } from './workspace.js';

// Literals are assembled at run time so this file does not trip the scan it tests.
const up = (n: number): string => Array.from({ length: n }, () => '..').join('/');
const q = (s: string): string => `'${s}'`;
const root = '/repo';
const file = '/repo/packages/x/src/a.test.ts';

describe('pathsOutsideRepo', () => {
  it('flags a relative literal that climbs above the repository', () => {
    const sibling = `${up(4)}/${'shared'}/conformance/a.json`;
    expect(pathsOutsideRepo(file, `readFileSync(${q(sibling)})`, root)).toContain(sibling);
  });

  it('accepts relative literals that stay inside, such as a package-local shared folder', () => {
    expect(pathsOutsideRepo(file, `import { x } from ${q(`${up(1)}/shared/protocol.js`)};`, root)).toEqual([]);
    expect(pathsOutsideRepo(file, `resolve(import.meta.dirname, ${q('..')}, ${q('..')}, ${q('..')}, ${q('fixtures')})`, root)).toEqual([]);
  });

  it('flags path segments climbing from import.meta.dirname or __dirname', () => {
    const text = `join(import.meta.dirname, ${q('..')}, ${q('..')}, ${q('..')}, ${q('..')}, ${q('shared')})`;
    expect(pathsOutsideRepo(file, text, root)).toEqual([`${up(4)}/shared`]);
    expect(pathsOutsideRepo(file, text.replace('import.meta.dirname', '__dirname'), root)).toHaveLength(1);
  });

  it('flags new URL(…, import.meta.url) above the repository', () => {
    expect(pathsOutsideRepo(file, `new URL(${q(`${up(4)}/x/`)}, import.meta.url)`, root)).toEqual([`${up(4)}/x/`]);
  });

  it('flags hard-coded pieces of the old shared folder wherever they appear', () => {
    const dir = ['shared', 'reference'].join('/');
    expect(pathsOutsideRepo(file, `const d = process.env.X ?? ${q(`/somewhere/${dir}/a.md`)};`, root)).toHaveLength(1);
  });
});

describe('the repository reads nothing outside itself', () => {
  const dirs = ['packages', 'apps', 'tooling', 'scripts'].map((d) => join(repoRoot, d)).filter(existsSync);
  const rootFiles = ['vitest.shared.ts', 'eslint.config.js', join('.ci', 'run')].map((f) => join(repoRoot, f)).filter(existsSync);
  const files = [...dirs.flatMap((d) => sourceFiles(d)), ...rootFiles];

  it('scans a meaningful number of files', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no test, source, bench or script file points above the repository root', () => {
    const problems = files.flatMap((f) => pathsOutsideRepo(f, readFileSync(f, 'utf8'), repoRoot).map((p) => `${rel(f)}: ${p}`));
    expect(problems).toEqual([]);
  });
});

describe('opting out', () => {
  it('ignores globs and lines marked as deliberate probes', () => {
    expect(pathsOutsideRepo(file, `const g = ${q(`${up(5)}/*/src/**`)};`, root)).toEqual([]);
    const probe = `{ path: ${q(`${up(6)}/etc/passwd`)} }, // ${ALLOW_MARKER}`;
    expect(pathsOutsideRepo(file, probe, root)).toEqual([]);
    expect(pathsOutsideRepo(file, probe.replace(ALLOW_MARKER, 'x'), root)).toHaveLength(1);
  });
});
