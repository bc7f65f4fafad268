// Type-checks TypeScript files as a user's project would under `--strict` (and
// `exactOptionalPropertyTypes`), resolving @nanobot/* packages to their sources.
import ts from 'typescript';

/**
 * The compiler's diagnostics for `files` (and global ones), formatted; empty when they compile.
 * Diagnostics inside the packages' own sources are left out: a user compiles against their
 * declaration files, not their sources under the user's flags.
 */
export function compileStrict(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['source'],
    // Only because the "source" condition also reaches a dependency's .ts sources.
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ['node'],
    verbatimModuleSyntax: true,
  });
  const wanted = new Set(files);
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file === undefined || wanted.has(d.file.fileName)).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}
