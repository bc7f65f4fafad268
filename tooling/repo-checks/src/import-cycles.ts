import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { importSpecifiers } from './workspace.js';

/** A directed graph of files: each file and the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

// How a relative specifier maps to a file: TypeScript's NodeNext rules (`./x.js` is `./x.ts`),
// plus extensionless and folder specifiers for the few scripts that use them.
const SWAPS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/\.js$/, ['.ts', '.tsx', '.js']],
  [/\.mjs$/, ['.mts', '.mjs']],
  [/\.cjs$/, ['.cts', '.cjs']],
  [/\.jsx$/, ['.tsx', '.jsx']],
];
const BARE_EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.js', '.mjs', '/index.ts', '/index.js'];

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** The file a relative specifier in `from` refers to, or `undefined` when none exists. */
export function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const [ext, replacements] of SWAPS) {
    if (!ext.test(base)) continue;
    for (const r of replacements) {
      const candidate = base.replace(ext, r);
      if (isFile(candidate)) return candidate;
    }
  }
  for (const suffix of BARE_EXTENSIONS) if (isFile(base + suffix)) return base + suffix;
  return undefined;
}

/**
 * The file-level import graph of `files`: an edge for every relative import, re-export and
 * dynamic import between two of them. Type-only imports count: a circle of types is still a
 * circle a reader has to untangle, and it becomes a runtime circle as soon as one side imports
 * a value.
 */
export function importGraph(files: readonly string[]): ImportGraph {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolveRelative(file, spec);
      if (target !== undefined && known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components with more than one file (or a
 * file importing itself), each sorted, listed in a stable order. Tarjan's algorithm, iterative so
 * a deep chain of imports cannot overflow the stack.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && edges.includes(frame.node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

/** One concrete circle through `start` inside `component` (`a → b → … → a`), for messages. */
export function cyclePath(graph: ImportGraph, component: readonly string[], start: string): string[] {
  const members = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}
