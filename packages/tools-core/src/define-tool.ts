import type { z } from 'zod';
import type { JsonSchema, RereadableOutput } from '@nanobot/schema';
import { ConfigurationError, resolveToolTraits } from '@nanobot/schema';
import type { ToolContext } from './tool-context.js';
import { DEFAULT_TOOL_SCOPES, Tool, type ToolLoadContext, type ToolOutput, type ToolScope } from './tool.js';

/** Fields shared by both {@link defineTool} forms. */
interface ToolSpecBase {
  /** Function name the model calls (used verbatim; keep to `[a-zA-Z0-9_-]`). */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Side-effect free (default false). */
  readOnly?: boolean;
  /** Must run alone even when batching is on (default false). */
  exclusive?: boolean;
  /**
   * Its result can be had again by calling it: under context pressure the governor may replace an
   * older result by a note asking for a narrower call (default false). See the README's "Traits".
   */
  compactable?: boolean;
  /**
   * Its output is content it pages through: a long result is cut with a continuation hint (the
   * lines shown, the offset/limit to read on) instead of being offloaded. `true` means
   * `read_file`'s paging (`offset`, `limit`, 1-based lines); an object names other arguments.
   * The named arguments must be among the parameters. Default: not rereadable.
   */
  rereadable?: boolean | Partial<RereadableOutput>;
  /** Registries the loader puts it in (default `['core']`). */
  scopes?: readonly ToolScope[];
  /** Per-call limit in ms; omitted → the registry's default, `0` → none. */
  timeoutMs?: number;
  /**
   * Loader predicate: return false to leave the tool out (e.g. a missing API key). Called once per
   * load, synchronously; may throw (the loader reports and skips the tool); must not mutate `ctx`.
   */
  enabled?: (ctx: ToolLoadContext) => boolean;
}

/** {@link defineTool} with a zod object schema: `execute`'s arguments are typed from it. */
export interface ZodToolSpec<S extends z.ZodType> extends ToolSpecBase {
  parameters: S;
  /**
   * Runs the tool with parsed arguments and the call's context. Awaited; may throw (the model gets
   * `Error executing <name>: <message>`); must not mutate or keep `ctx`.
   */
  execute: (args: z.output<S>, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** {@link defineTool} with a JSON Schema (MCP, plugins without zod) or no parameters. */
export interface JsonSchemaToolSpec<A> extends ToolSpecBase {
  parameters?: JsonSchema | null;
  /** As for {@link ZodToolSpec.execute}; arguments are cast and validated against the JSON Schema. */
  execute: (args: A, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

class DefinedTool<A> extends Tool<A> {
  override readonly name: string;
  override readonly description: string;
  override readonly parameters: z.ZodType | JsonSchema | null;
  override readonly readOnly: boolean;
  override readonly exclusive: boolean;
  override readonly compactable: boolean;
  override readonly rereadable: RereadableOutput | null;
  override readonly scopes: readonly ToolScope[];
  override readonly timeoutMs: number | undefined;
  readonly enabled: ((ctx: ToolLoadContext) => boolean) | undefined;
  readonly #run: (args: A, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>;

  constructor(spec: ToolSpecBase & { parameters?: z.ZodType | JsonSchema | null; execute: (args: A, ctx: ToolContext) => ToolOutput | Promise<ToolOutput> }) {
    super();
    this.name = spec.name;
    this.description = spec.description;
    this.parameters = spec.parameters ?? null;
    this.readOnly = spec.readOnly ?? false;
    this.exclusive = spec.exclusive ?? false;
    this.compactable = spec.compactable ?? false;
    this.scopes = Object.freeze([...(spec.scopes ?? DEFAULT_TOOL_SCOPES)]);
    this.timeoutMs = spec.timeoutMs;
    this.enabled = spec.enabled;
    this.#run = spec.execute;
    // Converting the schema here makes a bad one (or a zod schema that is not an object) fail at
    // definition, not on the model's first call; the traits are checked against it the same way.
    const traits = resolveToolTraits(
      { readOnly: spec.readOnly, compactable: spec.compactable, rereadable: spec.rereadable },
      { toolName: spec.name, parameters: this.jsonSchema },
    );
    this.rereadable = traits.rereadable;
  }

  override execute(args: A, ctx: ToolContext): ToolOutput | Promise<ToolOutput> {
    return this.#run(args, ctx);
  }
}

const SCOPES: ReadonlySet<string> = new Set(['core', 'subagent', 'memory']);

/**
 * Defines a tool in a few lines. With a zod object schema as `parameters`, `execute` gets typed,
 * zod-parsed arguments (defaults applied); with a JSON Schema it gets the cast, validated object.
 * The JSON Schema is computed once and frozen. Throws {@link ConfigurationError} for a spec that
 * cannot work (empty name, missing `execute`, unknown scope) and `SchemaError` for unusable
 * parameters — at definition time, not when the model first calls it.
 */
export function defineTool<S extends z.ZodType>(spec: ZodToolSpec<S>): Tool<z.output<S>>;
export function defineTool<A = Record<string, unknown>>(spec: JsonSchemaToolSpec<A>): Tool<A>;
export function defineTool(spec: ZodToolSpec<z.ZodType> | JsonSchemaToolSpec<unknown>): Tool<unknown> {
  if (typeof spec !== 'object' || spec === null) throw new ConfigurationError('defineTool needs a spec object');
  if (typeof spec.name !== 'string' || spec.name.length === 0) {
    throw new ConfigurationError('defineTool: `name` must be a non-empty string');
  }
  if (typeof spec.description !== 'string') {
    throw new ConfigurationError(`defineTool(${spec.name}): \`description\` must be a string`);
  }
  if (typeof spec.execute !== 'function') {
    throw new ConfigurationError(`defineTool(${spec.name}): \`execute\` must be a function`);
  }
  for (const scope of spec.scopes ?? []) {
    if (!SCOPES.has(scope)) throw new ConfigurationError(`defineTool(${spec.name}): unknown scope '${String(scope)}'`);
  }
  if (spec.timeoutMs !== undefined && !(typeof spec.timeoutMs === 'number' && spec.timeoutMs >= 0)) {
    throw new ConfigurationError(`defineTool(${spec.name}): \`timeoutMs\` must be a number >= 0`);
  }
  return new DefinedTool<unknown>(spec as JsonSchemaToolSpec<unknown>);
}
