// What a tool declares about its output, so that the governor's size rules are chosen by the
// tool's declaration rather than by its name (issue 29, item 3). The governor imports only this
// package, so the shape lives here; tools-core, the registry, MCP and the AI SDK adapter fill it.
import { ConfigurationError } from '../errors/errors.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * How a rereadable tool pages through its content: the arguments that say where reading starts
 * and how much is read. `read_file` is `{ offsetParam: 'offset', limitParam: 'limit', unit:
 * 'lines', firstOffset: 1 }`: its `offset` is a 1-based line number.
 */
export interface RereadableOutput {
  /** The argument naming where reading starts. */
  readonly offsetParam: string;
  /** The argument naming how much is read. */
  readonly limitParam: string;
  /** What `offset` and `limit` count. */
  readonly unit: 'lines' | 'characters';
  /** The offset of the first unit, which is also the start when the argument is absent (1 or 0). */
  readonly firstOffset: 0 | 1;
}

/**
 * A tool's declared traits, resolved (every field present). What each one changes is listed in
 * the tools-core README ("Traits").
 */
export interface ToolTraits {
  /** No side effects: the runner may batch it with other read-only calls. */
  readonly readOnly: boolean;
  /**
   * Its result can be obtained again by calling the tool (with the same or narrower arguments),
   * so under context pressure an older result may be replaced by a short note saying so.
   */
  readonly compactable: boolean;
  /**
   * Its output is a window on content the tool pages through (a file's lines): when too long it
   * is cut with a continuation hint (what was shown, the offset/limit to read on) instead of
   * being offloaded to an artifact, which the model could only read back with this same tool.
   */
  readonly rereadable: RereadableOutput | null;
}

/**
 * Traits as a tool declares them: every field optional; `rereadable: true` means read_file's
 * paging (`offset`/`limit`, 1-based lines), an object overrides parts of it. JSON-compatible, so
 * it can travel in an AI SDK tool's `providerOptions`.
 */
export interface ToolTraitsDeclaration {
  readOnly?: boolean;
  compactable?: boolean;
  rereadable?: boolean | Partial<RereadableOutput> | null;
}

/**
 * Resolved traits by tool name: what the runner passes to the governor as `toolTraits` (built by
 * the registry's `toolTraits()`). A name that is absent has {@link DEFAULT_TOOL_TRAITS}: a tool
 * that only shares a built-in's name gets no special treatment. Read it with {@link toolTraitsFor}.
 */
export type ToolTraitsByName = Readonly<Record<string, ToolTraits>>;

/** The traits of a tool that declares none: no rule treats it specially. */
export const DEFAULT_TOOL_TRAITS: ToolTraits = /* @__PURE__ */ Object.freeze({ readOnly: false, compactable: false, rereadable: null });

/** What `rereadable: true` stands for: read_file's paging. */
export const DEFAULT_REREADABLE_OUTPUT: RereadableOutput = /* @__PURE__ */ Object.freeze({
  offsetParam: 'offset',
  limitParam: 'limit',
  unit: 'lines',
  firstOffset: 1,
});

const UNITS: ReadonlySet<string> = new Set(['lines', 'characters']);

function optionalBoolean(value: unknown, field: string, where: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ConfigurationError(`${where}: \`${field}\` must be a boolean, got ${JSON.stringify(value) ?? typeof value}`);
  return value;
}

function resolveRereadable(value: unknown, where: string, parameters: JsonSchema | null | undefined): RereadableOutput | null {
  if (value === undefined || value === null || value === false) return null;
  let out: RereadableOutput;
  if (value === true) out = DEFAULT_REREADABLE_OUTPUT;
  else if (typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Partial<Record<keyof RereadableOutput, unknown>>;
    const merged = { ...DEFAULT_REREADABLE_OUTPUT, ...Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) };
    for (const key of ['offsetParam', 'limitParam'] as const) {
      if (typeof merged[key] !== 'string' || merged[key] === '') throw new ConfigurationError(`${where}: \`rereadable.${key}\` must be a non-empty string`);
    }
    if (merged.offsetParam === merged.limitParam) throw new ConfigurationError(`${where}: \`rereadable.offsetParam\` and \`limitParam\` must differ`);
    if (!UNITS.has(merged.unit as string)) throw new ConfigurationError(`${where}: \`rereadable.unit\` must be 'lines' or 'characters', got ${JSON.stringify(merged.unit)}`);
    if (merged.firstOffset !== 0 && merged.firstOffset !== 1) throw new ConfigurationError(`${where}: \`rereadable.firstOffset\` must be 0 or 1, got ${JSON.stringify(merged.firstOffset)}`);
    out = Object.freeze({ offsetParam: merged.offsetParam, limitParam: merged.limitParam, unit: merged.unit, firstOffset: merged.firstOffset }) as RereadableOutput;
  } else {
    throw new ConfigurationError(`${where}: \`rereadable\` must be true, false or { offsetParam, limitParam, unit, firstOffset }`);
  }
  // A continuation hint naming arguments the tool does not take would send the model in circles.
  const properties = parameters && typeof parameters === 'object' ? (parameters as { properties?: unknown }).properties : undefined;
  if (properties !== undefined) {
    const has = (key: string) => typeof properties === 'object' && properties !== null && Object.hasOwn(properties, key);
    for (const key of [out.offsetParam, out.limitParam]) {
      if (!has(key)) throw new ConfigurationError(`${where}: \`rereadable\` names the argument '${key}', which the tool's parameters do not have`);
    }
  }
  return out;
}

/**
 * Resolves a declaration into complete, frozen {@link ToolTraits}. With `parameters` (the tool's
 * JSON Schema), a rereadable tool's offset and limit arguments must be among its properties.
 * Throws `ConfigurationError` for a declaration that cannot work (a non-boolean flag, an unknown
 * unit, empty or missing argument names); never mutates its input.
 */
export function resolveToolTraits(
  declaration: ToolTraitsDeclaration | ToolTraits | null | undefined,
  context: { toolName?: string; parameters?: JsonSchema | null } = {},
): ToolTraits {
  const where = context.toolName === undefined ? 'tool traits' : `tool traits of '${context.toolName}'`;
  if (declaration === undefined || declaration === null) return DEFAULT_TOOL_TRAITS;
  if (typeof declaration !== 'object' || Array.isArray(declaration)) throw new ConfigurationError(`${where}: must be an object`);
  const readOnly = optionalBoolean(declaration.readOnly, 'readOnly', where);
  const compactable = optionalBoolean(declaration.compactable, 'compactable', where);
  const rereadable = resolveRereadable(declaration.rereadable, where, context.parameters);
  if (!readOnly && !compactable && rereadable === null) return DEFAULT_TOOL_TRAITS;
  return Object.freeze({ readOnly, compactable, rereadable });
}

/**
 * The traits of `name` in `table`, or {@link DEFAULT_TOOL_TRAITS} when the table is absent or
 * does not list it (own properties only: a tool named `constructor` finds nothing inherited).
 */
export function toolTraitsFor(table: ToolTraitsByName | null | undefined, name: unknown): ToolTraits {
  if (!table || typeof name !== 'string' || !Object.hasOwn(table, name)) return DEFAULT_TOOL_TRAITS;
  return table[name];
}

/**
 * Builds a frozen {@link ToolTraitsByName} (no prototype) from `[name, declaration]` pairs,
 * resolving each declaration. A later pair for the same name wins. Throws as
 * {@link resolveToolTraits} does.
 */
export function toolTraitsTable(entries: Iterable<readonly [string, ToolTraitsDeclaration | ToolTraits | null | undefined]>): ToolTraitsByName {
  const table = Object.create(null) as Record<string, ToolTraits>;
  for (const [name, declaration] of entries) table[name] = resolveToolTraits(declaration, { toolName: name });
  return Object.freeze(table);
}
