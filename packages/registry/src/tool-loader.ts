import { readdir, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isTool, type Tool, type ToolLoadContext, type ToolScope } from '@nanobot/tools-core';
import { withLegacyErrorPrefix } from './legacy-error-prefix.js';
import type { ToolRegistry } from './tool-registry.js';

/** A module of tools: what `import * as m from './tools.js'` gives. */
export type ToolModule = Readonly<Record<string, unknown>>;

/** Options of {@link ToolLoader}. */
export interface ToolLoaderOptions {
  /** Built-in tool modules, as namespaces or as specifiers passed to `import()`. */
  builtins?: readonly (ToolModule | string)[];
  /**
   * Directories of installed packages scanned for plugins (default: `<cwd>/node_modules`).
   * Pass `[]` to load no plugins.
   */
  pluginRoots?: readonly string[];
  /** Receives warnings (skipped plugins, collisions, broken packages). Not awaited; must not throw. */
  warn?: (message: string) => void;
}

/** Options of {@link ToolLoader.load}. */
export interface LoadOptions {
  /** Registry being built: `core` (main agent, default), `subagent` or `memory`. */
  scope?: ToolScope;
  /** Construction-time context passed to `enabled` and `create`. */
  context?: Partial<ToolLoadContext>;
}

/** What one {@link ToolLoader.load} did. */
export interface LoadReport {
  /** Names registered, in order. */
  registered: string[];
  /** Tools left out on purpose (scope, `enabled`, name conflicts), with why. */
  skipped: { name: string; source: string; reason: string }[];
  /** Modules, packages or tools that failed (import error, bad manifest, throwing factory). */
  failed: { source: string; error: string }[];
}

/** A tool found by discovery, not yet instantiated. */
interface Candidate {
  source: string;
  plugin: boolean;
  value: unknown;
}

/** `package.json` field naming a plugin package's tool modules. */
export const PLUGIN_MANIFEST_FIELD = 'nanobot';

/**
 * Finds tools and registers them: built-ins from a module list, plugins from installed packages
 * whose `package.json` has `"nanobot": { "tools": "./dist/tools.js" }` (a path or a list of
 * paths inside the package). A module contributes every export that is a tool (`defineTool`
 * result), a `Tool` subclass (built with its static `create(ctx)` if it has one, else `new`), or
 * an array of those; exports whose name starts with `_` are ignored. Nothing here is fatal: a
 * broken module or package is reported in {@link LoadReport.failed} and skipped.
 */
export class ToolLoader {
  readonly #builtins: readonly (ToolModule | string)[];
  readonly #pluginRoots: readonly string[];
  readonly #warn: (message: string) => void;
  #discovered: Promise<{ builtins: Candidate[]; plugins: Candidate[]; failed: LoadReport['failed'] }> | undefined;

  constructor(options: ToolLoaderOptions = {}) {
    this.#builtins = options.builtins ?? [];
    this.#pluginRoots = options.pluginRoots ?? [join(process.cwd(), 'node_modules')];
    this.#warn = options.warn ?? (() => {});
  }

  /**
   * Registers every discovered tool of `scope` that is enabled, built-ins first. A plugin tool
   * named like a built-in of this load is skipped with a warning; any other name collision
   * replaces the earlier tool, with a warning. Discovery runs once per loader and is reused.
   */
  async load(registry: ToolRegistry, options: LoadOptions = {}): Promise<LoadReport> {
    const scope = options.scope ?? 'core';
    const context: ToolLoadContext = Object.freeze({
      workspace: options.context?.workspace ?? process.cwd(),
      config: options.context?.config ?? {},
      services: options.context?.services ?? {},
    });
    this.#discovered ??= this.#discover();
    const discovered = await this.#discovered;
    const report: LoadReport = { registered: [], skipped: [], failed: [...discovered.failed] };
    const builtinNames = new Set<string>();

    for (const candidate of [...discovered.builtins, ...discovered.plugins]) {
      let tool: Tool<any> | null;
      try {
        tool = instantiate(candidate.value, context);
      } catch (err) {
        this.#fail(report, candidate.source, `cannot create tool: ${message(err)}`);
        continue;
      }
      if (tool === null) {
        report.skipped.push({ name: '', source: candidate.source, reason: 'not a concrete tool' });
        continue;
      }
      try {
        if (!(tool.scopes ?? ['core']).includes(scope)) {
          report.skipped.push({ name: tool.name, source: candidate.source, reason: `not in scope ${scope}` });
          continue;
        }
        if (!isEnabled(candidate.value, tool, context)) {
          report.skipped.push({ name: tool.name, source: candidate.source, reason: 'disabled' });
          continue;
        }
        if (candidate.plugin && builtinNames.has(tool.name)) {
          const reason = `Plugin ${candidate.source} skipped: conflicts with built-in tool ${tool.name}`;
          this.#warn(reason);
          report.skipped.push({ name: tool.name, source: candidate.source, reason });
          continue;
        }
        if (registry.has(tool.name)) {
          this.#warn(`Tool name collision: ${tool.name} from ${candidate.source} overwrites existing`);
        }
        registry.register(candidate.plugin ? withLegacyErrorPrefix(tool) : tool, { replace: true });
        report.registered.push(tool.name);
        if (!candidate.plugin) builtinNames.add(tool.name);
      } catch (err) {
        this.#fail(report, candidate.source, message(err));
      }
    }
    return report;
  }

  #fail(report: LoadReport, source: string, error: string): void {
    this.#warn(`Tool source ${source} failed: ${error}`);
    report.failed.push({ source, error });
  }

  async #discover(): Promise<{ builtins: Candidate[]; plugins: Candidate[]; failed: LoadReport['failed'] }> {
    const failed: LoadReport['failed'] = [];
    const builtins: Candidate[] = [];
    for (const [i, entry] of this.#builtins.entries()) {
      const source = typeof entry === 'string' ? entry : `builtins[${i}]`;
      try {
        const mod = typeof entry === 'string' ? ((await import(entry)) as ToolModule) : entry;
        builtins.push(...candidatesOf(mod, source, false));
      } catch (err) {
        failed.push({ source, error: `import failed: ${message(err)}` });
        this.#warn(`Tool module ${source} failed to import: ${message(err)}`);
      }
    }
    const plugins: Candidate[] = [];
    for (const dir of await this.#pluginPackages()) {
      const found = await pluginCandidates(dir);
      if ('error' in found) {
        failed.push({ source: found.source, error: found.error });
        this.#warn(`Plugin package ${found.source} skipped: ${found.error}`);
      } else {
        plugins.push(...found.candidates);
      }
    }
    return { builtins, plugins, failed };
  }

  async #pluginPackages(): Promise<string[]> {
    const dirs: string[] = [];
    for (const root of this.#pluginRoots) {
      for (const name of (await listDir(root)).sort()) {
        if (name.startsWith('.')) continue;
        if (name.startsWith('@')) {
          for (const sub of (await listDir(join(root, name))).sort()) dirs.push(join(root, name, sub));
        } else {
          dirs.push(join(root, name));
        }
      }
    }
    return dirs;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function pluginCandidates(
  dir: string,
): Promise<{ candidates: Candidate[] } | { source: string; error: string }> {
  let manifest: { name?: unknown; [PLUGIN_MANIFEST_FIELD]?: { tools?: unknown } };
  try {
    manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  } catch {
    return { candidates: [] }; // not a package (or unreadable): not ours to judge
  }
  const field = manifest?.[PLUGIN_MANIFEST_FIELD];
  if (field === undefined || field === null || typeof field !== 'object' || !('tools' in field)) return { candidates: [] };
  const source = typeof manifest.name === 'string' ? manifest.name : dir;
  const entries = typeof field.tools === 'string' ? [field.tools] : field.tools;
  if (!Array.isArray(entries) || entries.length === 0 || !entries.every((e) => typeof e === 'string')) {
    return { source, error: `"nanobot.tools" must be a path or a list of paths, got ${JSON.stringify(field.tools)}` };
  }
  const candidates: Candidate[] = [];
  let root: string;
  try {
    root = await realpath(dir);
  } catch (err) {
    return { source, error: message(err) };
  }
  for (const entry of entries as string[]) {
    const file = resolve(root, entry);
    const rel = relative(root, file);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      return { source, error: `"nanobot.tools" entry ${entry} points outside the package` };
    }
    try {
      const mod = (await import(pathToFileURL(file).href)) as ToolModule;
      candidates.push(...candidatesOf(mod, source, true));
    } catch (err) {
      return { source, error: `cannot import ${entry}: ${message(err)}` };
    }
  }
  return { candidates };
}

function candidatesOf(mod: ToolModule, source: string, plugin: boolean): Candidate[] {
  const seen = new Set<unknown>();
  const out: Candidate[] = [];
  const add = (value: unknown, exportName: string) => {
    if (seen.has(value)) return;
    if (isTool(value) || isToolClass(value)) {
      seen.add(value);
      out.push({ source: `${source}#${exportName}`, plugin, value });
    }
  };
  for (const exportName of Object.keys(mod).sort()) {
    if (exportName.startsWith('_')) continue;
    const value = mod[exportName];
    if (Array.isArray(value)) value.forEach((item, i) => add(item, `${exportName}[${i}]`));
    else add(value, exportName);
  }
  return out;
}

type ToolClass = (new () => Tool<any>) & {
  create?: (ctx: ToolLoadContext) => Tool<any>;
  enabled?: (ctx: ToolLoadContext) => boolean;
};

function isToolClass(value: unknown): value is ToolClass {
  return (
    typeof value === 'function' &&
    typeof (value as { prototype?: { execute?: unknown } }).prototype?.execute === 'function'
  );
}

function instantiate(value: unknown, context: ToolLoadContext): Tool<any> | null {
  if (isTool(value)) return value;
  if (!isToolClass(value)) return null;
  const instance: unknown = typeof value.create === 'function' ? value.create(context) : new value();
  return isTool(instance) ? instance : null;
}

function isEnabled(value: unknown, tool: Tool<any>, context: ToolLoadContext): boolean {
  const predicate = isToolClass(value)
    ? value.enabled
    : (tool as { enabled?: unknown }).enabled;
  if (typeof predicate !== 'function') return true;
  return Boolean(predicate.call(isToolClass(value) ? value : tool, context));
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
