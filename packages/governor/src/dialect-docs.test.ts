// The dialect READMEs (docs/anthropic.md, docs/responses.md): each example compiles against the
// real `@anthropic-ai/sdk` / `openai` types under --strict and exactOptionalPropertyTypes, with
// no casts, and prints what the README says it prints.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';

const pkg = resolve(import.meta.dirname, '..');
const DOCS = ['anthropic', 'responses'] as const;

function example(doc: string): { code: string; prints: string } {
  const text = readFileSync(join(pkg, 'docs', `${doc}.md`), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  const prints = /^prints `([^`]*)`/m.exec(text)?.[1];
  if (code === undefined || prints === undefined) throw new Error(`docs/${doc}.md has no ts example or no "prints" line`);
  return { code, prints };
}

function typeErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true,
    target: ts.ScriptTarget.ES2023, lib: ['lib.es2023.d.ts'], types: ['node'],
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, customConditions: ['source'],
    verbatimModuleSyntax: true, isolatedModules: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name in files ? ts.createSourceFile(name, files[name], lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in files || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => files[name] ?? readFile(name);
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || d.file.fileName in files)
    .map((d) => `${d.file?.fileName.slice(pkg.length + 1) ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const runDir = mkdtempSync(join(pkg, '.nanobot-test-docs-'));
afterAll(() => rmSync(runDir, { recursive: true, force: true }));

describe('dialect READMEs', () => {
  it('compile against the real SDK types under --strict and exactOptionalPropertyTypes, without casts', () => {
    const files: Record<string, string> = {};
    for (const doc of DOCS) {
      const { code } = example(doc);
      expect(code, doc).not.toMatch(/\bas\s+(unknown|any|never)\b|@ts-/);
      files[join(pkg, 'docs', `${doc}.example.ts`)] = `${code}\nexport {};\n`;
    }
    expect(typeErrors(files)).toEqual([]);
  }, 120_000);

  it.each(DOCS)('docs/%s.md: the example runs and prints what the README says', async (doc) => {
    const { code, prints } = example(doc);
    const file = join(runDir, `${doc}.example.ts`);
    writeFileSync(file, code);
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => { lines.push(args.map(String).join(' ')); });
    try {
      await import(file);
    } finally {
      spy.mockRestore();
    }
    expect(lines[0]).toBe(prints);
    const steps = /then `([^`]*)`/.exec(readFileSync(join(pkg, 'docs', `${doc}.md`), 'utf8'))?.[1]?.replace(/\s+/g, ' ');
    expect(lines[1]).toBe(steps);
  }, 60_000);
});
