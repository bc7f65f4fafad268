import { resolveToolTraits, type ContentPart, type JsonSchema, type RereadableOutput, type ToolDefinition, type ToolTraits } from '@nanobot/schema';
import type { ToolContext } from './tool-context.js';
import type { ToolResult } from './tool-result.js';
import { deepFreeze } from './deep-freeze.js';
import { castWithSchema, validateWithSchema } from './params-bridge.js';
import { isZodSchema, toParametersJsonSchema, type ToolParameters } from './tool-parameters.js';

/** Registries a tool joins when a loader builds one: the main agent, subagents, the memory agent. */
export type ToolScope = 'core' | 'subagent' | 'memory';

/** The scopes a tool has unless it says otherwise. */
export const DEFAULT_TOOL_SCOPES: readonly ToolScope[] = Object.freeze(['core'] as const);

/**
 * What `execute` may return. A {@link ToolResult} carries an explicit error flag; a string or a
 * content-block list is a successful result; `null`/`undefined`/empty text means "no output" (the
 * registry tells the model so); any other value is sent as JSON text.
 */
export type ToolOutput =
  | ToolResult
  | string
  | readonly ContentPart[]
  | Record<string, unknown>
  | number
  | boolean
  | null
  | undefined
  | void;

/** Result of {@link Tool.parseArgs}. */
export type ArgsParseResult<A> = { ok: true; value: A } | { ok: false; errors: string[] };

/** Construction-time context a loader hands to `enabled`/`create` (not per request). */
export interface ToolLoadContext {
  /** Workspace directory the agent runs in. */
  readonly workspace: string;
  /** The tools section of the configuration, as loaded (tools pick their own sub-config). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Shared services a tool may need at construction (bus, subagent manager, …), by name. */
  readonly services: Readonly<Record<string, unknown>>;
}

const jsonSchemaCache = new WeakMap<object, { parameters: unknown; schema: JsonSchema }>();
const definitionCache = new WeakMap<object, { key: unknown[]; definition: ToolDefinition }>();
const traitsCache = new WeakMap<object, { key: unknown[]; traits: ToolTraits }>();

/**
 * What a tool is. Extend it for a class-based tool, or call `defineTool` for a plain one; the
 * registry accepts any object of this shape (it has no private members, so a plugin built against
 * another copy of this package fits too).
 *
 * `execute(args, ctx)` receives arguments already coerced, cast and validated by the registry,
 * and the per-call {@link ToolContext}. It may throw (the registry turns that into an error
 * result the model reads) and must not keep `ctx` or per-request state on the instance.
 */
export abstract class Tool<A = Record<string, unknown>> {
  /** Function name the model calls, used verbatim. */
  abstract readonly name: string;
  /** What the tool does, for the model. */
  abstract readonly description: string;
  /** zod schema, JSON Schema object, or `null` for no parameters. */
  abstract readonly parameters: ToolParameters;
  /** Side-effect free. */
  readonly readOnly: boolean = false;
  /** Must run alone even when the runner batches concurrency-safe calls. */
  readonly exclusive: boolean = false;
  /**
   * Its result can be obtained again by calling it (same or narrower arguments), so under context
   * pressure the governor may replace an older result with a note saying so. See {@link traits}.
   */
  readonly compactable: boolean = false;
  /**
   * Its output is a window on content it pages through (`read_file`'s lines): when too long it is
   * cut with a hint naming these arguments instead of being offloaded. `null`: not rereadable.
   */
  readonly rereadable: RereadableOutput | null = null;
  /** Registries this tool joins when loaded (default `['core']`). */
  readonly scopes: readonly ToolScope[] = DEFAULT_TOOL_SCOPES;
  /** Per-call time limit in ms; `undefined` uses the registry's default, `0` means none. */
  readonly timeoutMs: number | undefined = undefined;

  /** May be batched with other concurrency-safe calls: `readOnly && !exclusive`. */
  get concurrencySafe(): boolean {
    return this.readOnly && !this.exclusive;
  }

  /**
   * The declared traits, resolved and frozen: what the registry hands the governor (see the
   * README's "Traits"). Throws `ConfigurationError` when `rereadable` names an argument the
   * parameters do not have (the registry calls it on `register`, so that fails early).
   */
  get traits(): ToolTraits {
    const key = [this.readOnly, this.compactable, this.rereadable, this.jsonSchema];
    const hit = traitsCache.get(this);
    if (hit && hit.key.every((part, i) => part === key[i])) return hit.traits;
    const traits = resolveToolTraits(
      { readOnly: this.readOnly, compactable: this.compactable, rereadable: this.rereadable },
      { toolName: this.name, parameters: this.jsonSchema },
    );
    traitsCache.set(this, { key, traits });
    return traits;
  }

  /** The parameters as the (deep-frozen) JSON Schema the model sees; computed once per schema. */
  get jsonSchema(): JsonSchema {
    const parameters = this.parameters;
    const hit = jsonSchemaCache.get(this);
    if (hit && hit.parameters === parameters) return hit.schema;
    const schema = toParametersJsonSchema(parameters);
    jsonSchemaCache.set(this, { parameters, schema });
    return schema;
  }

  /** Lenient schema-driven casts (string → number, …) as the reference does; never throws. */
  castParams(params: Record<string, unknown>): Record<string, unknown> {
    return castWithSchema(this.jsonSchema, params);
  }

  /** Reference validation; `[]` when valid, else short path-qualified messages. Never throws. */
  validateParams(params: Record<string, unknown>): string[] {
    return validateWithSchema(this.jsonSchema, params);
  }

  /**
   * Turns validated parameters into `execute`'s arguments. For zod parameters this runs the zod
   * schema (defaults, transforms, refinements); otherwise it returns the parameters unchanged.
   */
  parseArgs(params: Record<string, unknown>): ArgsParseResult<A> {
    const parameters = this.parameters;
    if (!isZodSchema(parameters)) return { ok: true, value: params as A };
    const parsed = parameters.safeParse(params);
    if (parsed.success) return { ok: true, value: parsed.data as A };
    return { ok: false, errors: parsed.error.issues.map((issue) => `${issuePath(issue.path)}: ${issue.message}`) };
  }

  /** Runs the tool. See the class comment for what it may do. */
  abstract execute(args: A, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;

  /** The OpenAI function definition for this tool (frozen; rebuilt only when a field changes). */
  toSchema(): ToolDefinition {
    const key = [this.name, this.description, this.jsonSchema];
    const hit = definitionCache.get(this);
    if (hit && hit.key.every((part, i) => part === key[i])) return hit.definition;
    const definition: ToolDefinition = deepFreeze({
      type: 'function',
      function: { name: this.name, description: this.description, parameters: this.jsonSchema },
    });
    definitionCache.set(this, { key, definition });
    return definition;
  }
}

function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || 'parameter';
}

const TOOL_METHODS = ['execute', 'castParams', 'validateParams', 'parseArgs', 'toSchema'] as const;

/**
 * True for anything usable as a tool: string `name` and `description` plus the methods of
 * {@link Tool}. Checked by shape, not `instanceof`, so tools built against another copy of this
 * package (plugins) are accepted.
 */
export function isTool(value: unknown): value is Tool<any> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === 'string' &&
    typeof v.description === 'string' &&
    TOOL_METHODS.every((method) => typeof v[method] === 'function')
  );
}

/**
 * The traits of anything {@link isTool} accepts: its `traits` when it has them, else resolved
 * from its `readOnly` / `compactable` / `rereadable` fields (a plugin built against an older copy
 * of this package has no `traits` getter). Throws `ConfigurationError` as {@link Tool.traits} does.
 */
export function toolTraitsOf(tool: Tool<any>): ToolTraits {
  const own = (tool as { traits?: unknown }).traits;
  if (typeof own === 'object' && own !== null) return own as ToolTraits;
  const fields = tool as { readOnly?: unknown; compactable?: unknown; rereadable?: unknown };
  return resolveToolTraits(
    { readOnly: fields.readOnly === true, compactable: fields.compactable === true, rereadable: fields.rereadable as RereadableOutput | null | undefined },
    { toolName: tool.name, parameters: tool.jsonSchema },
  );
}
