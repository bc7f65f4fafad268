import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleLevelState, moduleStateFindings } from './module-state.js';
import { MODULE_STATE_ALLOWED } from './module-state-allowed.js';
import { listPackages, rel, repoRoot, sourceFiles } from './workspace.js';

const check = (text: string): string[] => moduleLevelState('x.ts', text);

describe('moduleLevelState', () => {
  it('flags top-level let and var, and constants holding collections, literals or instances', () => {
    expect(check('let calls = 0;')).toEqual(['x.ts:1 top-level let calls']);
    expect(check('var x = 1;')).toHaveLength(1);
    expect(check('const memo = new WeakMap<object, string>();')).toEqual(['x.ts:1 memo holds new WeakMap(…)']);
    expect(check('const seen = new Set<string>();')).toHaveLength(1);
    expect(check('export const cache: Map<string, number> = new Map();')).toHaveLength(1);
    expect(check('const list = [1, 2];')).toHaveLength(1);
    expect(check('const box = { n: 0 };')).toHaveLength(1);
    expect(check('const store = createStore();')).toHaveLength(1);
    expect(check('const frozen = Object.freeze({ cache: new Map() });')).toHaveLength(1);
    expect(check('class A { static count = 0; }')).toHaveLength(1);
    expect(check('class A { static readonly cache = new Map(); }')).toHaveLength(1);
  });

  it('accepts what cannot change: primitives, functions, frozen or read-only values, symbols, patterns', () => {
    const ok = [
      "const NAME = 'x';",
      'const LIMIT = 64;',
      'const f = (x: number) => x + 1;',
      'function g() { let local = new Map(); return local; }',
      "const ROLES: readonly string[] = ['a', 'b'];",
      "const ROLES2: ReadonlySet<string> = new Set(['a']);",
      "const OPTIONS = ['a', 'b'] as const;",
      'const FLAGS = { a: true } as const;',
      'const KEEP = Object.freeze({ out: null });',
      "const KEY = Symbol('k');",
      'const PATTERN = /^[a-z]+$/;',
      'const MIN = Math.min(1, 2);',
      "const NOTE = ['a', 'b'].join('\\n');",
      "const STEP = defineStep({ name: 'x', run: () => { const m = new Map(); return m; } });",
      'class A { static readonly LIMIT = 3; method() { const m = new Map(); return m; } }',
    ];
    for (const text of ok) expect(check(text), text).toEqual([]);
  });
});

describe('the governor keeps no module-level mutable state outside incremental/', () => {
  it('holds for every source file of packages/governor/src (tests and test support aside)', () => {
    const dir = join(repoRoot, 'packages', 'governor', 'src');
    const files = sourceFiles(dir).filter((f) => !/\.test\.ts$/.test(f) && !f.includes('/test-support/') && !f.includes('/incremental/'));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((f) => moduleLevelState(rel(f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });
});

describe('no module-level mutable state in any package or app, beyond the allowed list', () => {
  const isSource = (f: string): boolean => !/\.test\.tsx?$/.test(f) && !f.includes('/test-support/');
  const findings = listPackages().flatMap((p) => {
    const dir = join(p.dir, 'src');
    return existsSync(dir) ? sourceFiles(dir).filter(isSource).flatMap((f) => moduleStateFindings(rel(f), readFileSync(f, 'utf8'))) : [];
  });

  it('every finding is on the allowed list, with its reason', () => {
    const unexpected = findings.filter((f) => !MODULE_STATE_ALLOWED.has(`${f.file}#${f.name}`)).map((f) => `${f.file}:${f.line} ${f.name} ${f.why}`);
    expect(unexpected).toEqual([]);
    for (const reason of MODULE_STATE_ALLOWED.values()) expect(reason.length).toBeGreaterThan(20);
  });

  it('every allowed entry still matches a finding (the list only shrinks)', () => {
    const found = new Set(findings.map((f) => `${f.file}#${f.name}`));
    expect([...MODULE_STATE_ALLOWED.keys()].filter((k) => !found.has(k))).toEqual([]);
  });
});
