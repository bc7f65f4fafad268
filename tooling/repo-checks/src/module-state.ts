import ts from 'typescript';

// Rules are pure and memos belong to the object that owns them (a Governor), so rule files keep
// no state of their own at module level: no `let` / `var` at the top level, and no top-level
// constant (or static class field) holding something that can change — a Map, Set, WeakMap,
// WeakSet, an array or object literal, an instance — unless it is frozen, `as const`, or typed
// read-only. Functions, primitives, symbols and regular expressions are fine.

/** Calls known to return frozen values (a declared step, a dialect's origin tag). */
const FROZEN_FACTORIES: readonly string[] = Object.freeze(['Object.freeze', 'defineStep', 'createOriginTag', 'Symbol', 'String', 'Number', 'Boolean', 'BigInt']);

/** Methods whose result is a primitive (a string), whatever they are called on. */
const PRIMITIVE_METHODS: readonly string[] = Object.freeze(['join', 'toString', 'toFixed', 'trim', 'toLowerCase', 'toUpperCase', 'replace', 'replaceAll', 'padStart', 'padEnd', 'repeat']);

function isReadonlyType(type: ts.TypeNode | undefined): boolean {
  if (type === undefined) return false;
  if (ts.isTypeOperatorNode(type) && type.operator === ts.SyntaxKind.ReadonlyKeyword) return true;
  if (ts.isTypeReferenceNode(type)) {
    const name = type.typeName.getText();
    return ['Readonly', 'ReadonlyArray', 'ReadonlyMap', 'ReadonlySet'].includes(name);
  }
  // Primitive and function types hold nothing that changes.
  return type.kind === ts.SyntaxKind.StringKeyword || type.kind === ts.SyntaxKind.NumberKeyword || type.kind === ts.SyntaxKind.BooleanKeyword
    || ts.isFunctionTypeNode(type) || ts.isLiteralTypeNode(type);
}

/** Why an initializer holds mutable state, or null when it does not. */
function mutableInitializer(init: ts.Expression): string | null {
  let e = init;
  for (;;) {
    if (ts.isParenthesizedExpression(e)) e = e.expression;
    else if (ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e)) e = e.expression;
    else if (ts.isAsExpression(e)) {
      if (ts.isTypeReferenceNode(e.type) && e.type.typeName.getText() === 'const') return null;
      e = e.expression;
    } else break;
  }
  if (ts.isNewExpression(e)) {
    const name = e.expression.getText();
    return name === 'RegExp' ? null : `new ${name}(…)`;
  }
  if (ts.isArrayLiteralExpression(e)) return 'an array literal (freeze it or type it readonly)';
  if (ts.isObjectLiteralExpression(e)) return 'an object literal (freeze it, `as const`, or type it Readonly)';
  if (ts.isCallExpression(e)) {
    const callee = e.expression.getText();
    if (FROZEN_FACTORIES.includes(callee) || callee.startsWith('Math.')) {
      // A frozen object still must not hold a collection.
      for (const arg of e.arguments) {
        const inner = ts.isAsExpression(arg) ? arg.expression : arg;
        if (ts.isObjectLiteralExpression(inner) || ts.isArrayLiteralExpression(inner)) {
          let found: string | null = null;
          const visit = (n: ts.Node): void => {
            // What a function makes when called is not module state.
            if (ts.isFunctionLike(n)) return;
            if (found === null && ts.isNewExpression(n) && n.expression.getText() !== 'RegExp') found = `new ${n.expression.getText()}(…) inside a frozen value`;
            else ts.forEachChild(n, visit);
          };
          visit(inner);
          if (found !== null) return found;
        }
      }
      return null;
    }
    // A string method's result is a string.
    if (ts.isPropertyAccessExpression(e.expression) && PRIMITIVE_METHODS.includes(e.expression.name.text)) return null;
    return `the result of ${callee.split('\n')[0]}(…)`;
  }
  return null;
}

/** One piece of module-level mutable state: where, the binding's name, and why it counts. */
export interface ModuleStateFinding {
  file: string;
  line: number;
  /** The top-level binding (`Class.field` for a static field). */
  name: string;
  why: string;
}

/**
 * Module-level mutable state in a TypeScript source: one finding per top-level `let` / `var`,
 * and per top-level constant or static class field whose value can change (see the file
 * comment). Pure; `fileName` only names the findings.
 */
export function moduleStateFindings(fileName: string, text: string): ModuleStateFinding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: ModuleStateFinding[] = [];
  const line = (n: ts.Node): number => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      const kind = flags & ts.NodeFlags.Let ? 'let' : flags & ts.NodeFlags.Const ? 'const' : 'var';
      for (const d of statement.declarationList.declarations) {
        const name = d.name.getText(source);
        if (kind !== 'const') {
          out.push({ file: fileName, line: line(d), name, why: `top-level ${kind}` });
          continue;
        }
        if (d.initializer === undefined || isReadonlyType(d.type)) continue;
        const why = mutableInitializer(d.initializer);
        if (why !== null) out.push({ file: fileName, line: line(d), name, why: `holds ${why}` });
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        if (!ts.isPropertyDeclaration(member) || !member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) continue;
        const readonly = member.modifiers.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
        const name = `${statement.name?.text ?? 'class'}.${member.name.getText(source)}`;
        if (!readonly) out.push({ file: fileName, line: line(member), name, why: 'is a static field that is not readonly' });
        else if (member.initializer !== undefined && !isReadonlyType(member.type)) {
          const why = mutableInitializer(member.initializer);
          if (why !== null) out.push({ file: fileName, line: line(member), name, why: `holds ${why}` });
        }
      }
    }
  }
  return out;
}

/** {@link moduleStateFindings} as one line each: `file:line name why`. Pure. */
export function moduleLevelState(fileName: string, text: string): string[] {
  return moduleStateFindings(fileName, text).map((f) => (f.why.startsWith('top-level ') ? `${f.file}:${f.line} ${f.why} ${f.name}` : f.why.startsWith('is a static') ? `${f.file}:${f.line} static ${f.name} is not readonly` : `${f.file}:${f.line} ${f.name} ${f.why}`));
}
