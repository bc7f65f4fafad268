// The two entries as a fresh process loads them (no test setup): the main entry, which every
// runtime can load, and the Node entry that Node, Bun and Deno resolve `@nanobot/schema` to.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { describe, expect, it } from 'vitest';

const src = import.meta.dirname;
const TEXT = 'Counting the same way in every runtime: 42 tokens, give or take none.';

function run(entry: string, body: string): unknown {
  const script = `
    import { createRequire } from 'node:module';
    const s = await import(${JSON.stringify(pathToFileURL(join(src, entry)).href)});
    const loadedCjs = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\\/(zod|ajv)\\//.test(f)).length > 0;
    const out = {};
    const attempt = (fn) => { try { return { value: fn() }; } catch (e) { return { error: e.name, code: e.code, encoding: e.encoding }; } };
    ${body}
    console.log(JSON.stringify(out));`;
  const res = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(src, '..') });
  expect(res.stderr).toBe('');
  return JSON.parse(res.stdout.trim());
}

describe('the main entry', () => {
  it('imports no node:* module and no createRequire, anywhere in its sources', () => {
    // Every file the main entry can reach: the whole src tree but the Node entry's own files.
    const files = spawnSync('git', ['ls-files', 'src'], { cwd: join(src, '..'), encoding: 'utf8' })
      .stdout.split('\n')
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('/node/') && f !== 'src/node.ts' && !f.includes('test-support'));
    expect(files.length).toBeGreaterThan(40);
    // Code only: a doc comment may say what the entry avoids.
    const code = (f: string): string => readFileSync(join(src, '..', f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const offenders = files.filter((f) => /from ['"]node:|import\(['"]node:|createRequire|\brequire\(/.test(code(f)));
    expect(offenders).toEqual([]);
  });

  it('throws TokenizerNotLoadedError before loadTokenizer, counts exactly after; validates and parses without Node', () => {
    const out = run(
      'index.ts',
      `
      out.before = attempt(() => s.countTokens(${JSON.stringify(TEXT)}));
      out.estimate = attempt(() => s.estimatePromptTokens([{ role: 'user', content: 'hi' }]));
      await s.loadTokenizer('cl100k_base');
      out.after = attempt(() => s.countTokens(${JSON.stringify(TEXT)}));
      out.o200k = attempt(() => s.countWithEncoding('o200k_base', 'x'));
      out.backend = s.jsonSchemaBackendName();
      out.validate = s.validateParams({ type: 'object', properties: { p: { type: 'string', pattern: '^/' } } }, { p: 'rel' });
      out.parsed = s.parseMessages([{ role: 'user', content: 'hi' }]).length;`,
    );
    expect(out).toEqual({
      before: { error: 'TokenizerNotLoadedError', code: 'TOKENIZER_NOT_LOADED', encoding: 'cl100k_base' },
      estimate: { error: 'TokenizerNotLoadedError', code: 'TOKENIZER_NOT_LOADED', encoding: 'cl100k_base' },
      after: { value: new Tiktoken(cl100k).encode(TEXT, [], []).length },
      o200k: { error: 'TokenizerNotLoadedError', code: 'TOKENIZER_NOT_LOADED', encoding: 'o200k_base' },
      backend: 'interpreted',
      validate: ['p must match pattern "^/"'],
      parsed: 1,
    });
  }, 60_000);
});

describe('the Node entry', () => {
  it('counts on first use without an await, and requires zod and ajv only when first used', () => {
    const out = run(
      'node.ts',
      `
      out.atImport = loadedCjs();
      out.count = attempt(() => s.countTokens(${JSON.stringify(TEXT)}));
      out.backend = s.jsonSchemaBackendName();
      out.afterCount = loadedCjs();
      out.validate = s.validateParams({ type: 'object', properties: { p: { type: 'string', pattern: '^/' } } }, { p: 'rel' });
      out.parsed = s.parseMessages([{ role: 'user', content: 'hi' }]).length;
      out.afterUse = loadedCjs();`,
    );
    expect(out).toEqual({
      atImport: false,
      count: { value: new Tiktoken(cl100k).encode(TEXT, [], []).length },
      backend: 'ajv',
      afterCount: false,
      validate: ['p must match pattern "^/"'],
      parsed: 1,
      afterUse: true,
    });
  }, 60_000);
});
