import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Root of the repository (two levels above this package). */
export const repoRoot = resolve(import.meta.dirname, '..', '..', '..');

/** One workspace package as read from disk. */
export interface WorkspacePackage {
  dir: string;
  name: string;
  manifest: {
    name: string;
    private?: boolean;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    exports?: Record<string, unknown>;
    [key: string]: unknown;
  };
}

/** Every package under packages/ and apps/. */
export function listPackages(): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(repoRoot, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir).sort()) {
      const file = join(groupDir, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as WorkspacePackage['manifest'];
      out.push({ dir: join(groupDir, entry), name: manifest.name, manifest });
    }
  }
  return out;
}

/** The `@nanobot/*` packages a package depends on (runtime and dev). */
export function internalDeps(pkg: WorkspacePackage): string[] {
  const all = { ...pkg.manifest.dependencies, ...pkg.manifest.devDependencies };
  return Object.keys(all).filter((d) => d.startsWith('@nanobot/')).sort();
}

/** All TypeScript/JavaScript source files of a package, outside dist and node_modules. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d)) {
      if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
      const full = join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(m?ts|tsx|m?js)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Module specifiers imported or re-exported by a source text (static and dynamic). */
export function importSpecifiers(text: string): string[] {
  const specs = new Set<string>();
  const patterns = [
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) specs.add(m[1]!);
  return [...specs];
}

/** Path of `file` relative to the repository root, for messages. */
export function rel(file: string): string {
  return relative(repoRoot, file);
}
