// Every ```ts example of the governor README, compiled under --strict with
// exactOptionalPropertyTypes against the real openai and @anthropic-ai/sdk types, together with
// the hand-written type tests of this folder. A README example that stops compiling fails here.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const readme = readFileSync(join(here, '..', '..', 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

describe('governor README examples', () => {
  it('has examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it('all compile under --strict and exactOptionalPropertyTypes with the real SDK types', () => {
    const out = join(here, '.readme');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    // Each example is its own module, as a reader would paste it.
    const files = examples.map((code, i) => {
      const file = join(out, `example-${i + 1}.ts`);
      writeFileSync(file, /\b(import|export)\b/.test(code) ? code : `${code}\nexport {};\n`);
      return file;
    });
    const configPath = join(here, 'tsconfig.json');
    const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, here);
    expect(parsed.options.strict).toBe(true);
    expect(parsed.options.exactOptionalPropertyTypes).toBe(true);
    const program = ts.createProgram([...parsed.fileNames, ...files], parsed.options);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => here,
      getNewLine: () => '\n',
    }));
    expect(diagnostics).toEqual([]);
    // The SDK types really were loaded (not silently missing).
    const loaded = program.getSourceFiles().map((f) => f.fileName);
    expect(loaded.some((f) => f.includes('/openai/resources/chat/completions'))).toBe(true);
    expect(loaded.some((f) => f.includes('/@anthropic-ai/sdk/resources/messages'))).toBe(true);
  }, 240_000);
});
