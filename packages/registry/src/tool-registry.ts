import { compareCodePoints, ConfigurationError, pythonStr, pythonTypeName, type ToolDefinition, type ToolTraits, type ToolTraitsByName } from '@nanobot/schema';
import {
  createToolContext,
  isTool,
  isToolResult,
  toolResult,
  toolTraitsOf,
  type Tool,
  type ToolContent,
  type ToolContext,
  type ToolEvent,
  type ToolResult,
  type ToolScope,
} from '@nanobot/tools-core';
import { coerceToolArguments } from './coerce-tool-arguments.js';
import { suggestToolName } from './suggest-tool-name.js';
import {
  TOOL_ERROR_HINT,
  cancelledMessage,
  executionErrorMessage,
  invalidParametersMessage,
  malformedArgumentsMessage,
  noOutputMessage,
  notAnObjectMessage,
  timeoutMessage,
  toolNotFoundMessage,
} from './tool-error-messages.js';

/** Options of {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Time limit for a call whose tool sets none, in ms (default 300 000; `0` = no limit). */
  defaultTimeoutMs?: number;
  /** Repair malformed argument JSON with jsonrepair (default true; false = the reference's rejection). */
  repairArguments?: boolean;
  /** Longest argument text a repair is attempted on (default 100 000 characters). */
  maxRepairChars?: number;
}

/** Why {@link ToolRegistry.prepareCall} refused a call. */
export type PrepareFailureReason = 'not_found' | 'not_object' | 'malformed_json' | 'invalid_params';

/** A call ready to run: the tool, the cast and validated parameters, and `execute`'s arguments. */
export interface PreparedCallOk {
  ok: true;
  name: string;
  tool: Tool<any>;
  /** Parameters after coercion and casting (what the reference passes to the tool). */
  params: Record<string, unknown>;
  /** What `execute` receives: `params`, or the zod-parsed value for zod tools. */
  args: unknown;
  /** The argument text was malformed and repaired. */
  repaired: boolean;
}

/** A call that must not run; `error` is the model-visible text (without the retry hint). */
export interface PreparedCallError {
  ok: false;
  name: string;
  /** The tool, when the name was known. Never the suggested one. */
  tool: Tool<any> | null;
  /** Parameters as far as preparation got (the raw payload for unknown names). */
  params: unknown;
  error: string;
  reason: PrepareFailureReason;
  /** For `not_found`: the suggested name, if exactly one normalised match exists. */
  suggestion: string | null;
  repaired: boolean;
}

/** Result of {@link ToolRegistry.prepareCall}. */
export type PreparedCall = PreparedCallOk | PreparedCallError;

/** How a call ended. Only `ok` is a success; everything else has `isError` true. */
export type ToolExecutionStatus = 'ok' | 'tool_error' | 'threw' | 'timeout' | 'aborted' | PrepareFailureReason;

/** Everything the runner needs about one executed call. Never thrown; always returned. */
export interface ToolExecution {
  /** The name the model asked for. */
  name: string;
  /** The tool that ran (or would have), `null` for unknown names. */
  tool: Tool<any> | null;
  status: ToolExecutionStatus;
  /** What the model reads. Error results end with {@link TOOL_ERROR_HINT}. */
  result: ToolResult;
  /** Shortcut for `result.isError`. */
  isError: boolean;
  /** The tool's own return value, unnormalised (`undefined` if it never returned). */
  value: unknown;
  /** Prepared parameters (raw payload when preparation failed). */
  params: unknown;
  /** What the tool threw (`status: 'threw'`), for logs; the model sees only its message. */
  error: unknown;
  /** Wall time of preparation plus execution. */
  durationMs: number;
  /** The argument text was malformed and repaired. */
  repaired: boolean;
}

/** Per-call options of {@link ToolRegistry.execute}. */
export interface ExecuteOptions {
  /** The model's tool-call id, stamped on the context and on emitted events. */
  toolCallId?: string;
  /** Overrides the tool's and the registry's time limit for this call (ms; `0` = none). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const MCP_PREFIX = 'mcp_';
const ALL_SCOPES = '*';

/**
 * Holds the tools of one agent and calls them safely: whatever the model sends, `prepareCall`
 * and `execute` answer with data the model can read, never with an exception.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool<any>>();
  readonly #definitions = new Map<string, readonly ToolDefinition[]>();
  readonly #traits = new Map<string, ToolTraitsByName>();
  readonly #defaultTimeoutMs: number;
  readonly #repair: { repair: boolean; maxRepairChars: number };

  constructor(options: ToolRegistryOptions = {}) {
    const timeout = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(typeof timeout === 'number' && timeout >= 0)) {
      throw new ConfigurationError('ToolRegistry: defaultTimeoutMs must be a number >= 0');
    }
    this.#defaultTimeoutMs = timeout;
    this.#repair = { repair: options.repairArguments ?? true, maxRepairChars: options.maxRepairChars ?? 100_000 };
  }

  /**
   * Adds a tool. A second tool with the same name is a {@link ConfigurationError} unless
   * `replace` is set (the reference replaced silently, hiding wiring mistakes); a tool whose
   * schema cannot be built throws its `SchemaError` here.
   */
  register(tool: Tool<any>, options: { replace?: boolean } = {}): void {
    if (!isTool(tool)) {
      throw new ConfigurationError(
        'ToolRegistry.register: not a tool (needs name, description, execute, castParams, validateParams, parseArgs, toSchema; build it with defineTool or extend Tool)',
      );
    }
    if (tool.name.length === 0) throw new ConfigurationError('ToolRegistry.register: tool name is empty');
    if (this.#tools.has(tool.name) && !options.replace) {
      throw new ConfigurationError(`ToolRegistry.register: a tool named '${tool.name}' is already registered`);
    }
    // Build the definition now: a schema that cannot be converted fails here, with its typed
    // error, not later inside definitions() or on the model's first call; so do traits naming
    // arguments the tool does not take.
    tool.toSchema();
    toolTraitsOf(tool);
    this.#tools.set(tool.name, tool);
    this.#clearCaches();
  }

  #clearCaches(): void {
    this.#definitions.clear();
    this.#traits.clear();
  }

  /** Removes a tool; returns whether one was there. */
  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) this.#clearCaches();
    return removed;
  }

  /** The tool registered under exactly `name`. */
  get(name: string): Tool<any> | undefined {
    return this.#tools.get(name);
  }

  /** Whether a tool is registered under exactly `name`. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Registered names in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Number of registered tools. */
  get size(): number {
    return this.#tools.size;
  }

  /**
   * Tool definitions for the model: built-ins sorted by name, then `mcp_` tools sorted by name
   * (code-point order), optionally only those of one scope. The frozen array is cached and the
   * same object is returned until a tool is registered or unregistered, so the prompt prefix and
   * token estimates stay cached. Call {@link invalidateDefinitions} if a tool's description or
   * schema changes while registered.
   */
  definitions(options: { scope?: ToolScope } = {}): readonly ToolDefinition[] {
    const key = options.scope ?? ALL_SCOPES;
    const hit = this.#definitions.get(key);
    if (hit) return hit;
    const builtins: ToolDefinition[] = [];
    const mcp: ToolDefinition[] = [];
    for (const tool of this.#tools.values()) {
      if (options.scope !== undefined && !(tool.scopes ?? ['core']).includes(options.scope)) continue;
      const definition = tool.toSchema();
      (definitionName(definition).startsWith(MCP_PREFIX) ? mcp : builtins).push(definition);
    }
    const byName = (a: ToolDefinition, b: ToolDefinition) => compareCodePoints(definitionName(a), definitionName(b));
    const list = Object.freeze([...builtins.sort(byName), ...mcp.sort(byName)]);
    this.#definitions.set(key, list);
    return list;
  }

  /**
   * The declared traits of the registered tools by name (see tools-core's "Traits"), optionally
   * only those of one scope: what the runner passes to the governor as `toolTraits`. A frozen
   * table without prototype, cached like {@link definitions}: the same object until a tool is
   * registered or unregistered (or {@link invalidateDefinitions} is called), so per-request work
   * keyed on it stays cached. A name it does not list has no traits.
   */
  toolTraits(options: { scope?: ToolScope } = {}): ToolTraitsByName {
    const key = options.scope ?? ALL_SCOPES;
    const hit = this.#traits.get(key);
    if (hit) return hit;
    const table = Object.create(null) as Record<string, ToolTraits>;
    for (const tool of this.#tools.values()) {
      if (options.scope !== undefined && !(tool.scopes ?? ['core']).includes(options.scope)) continue;
      table[tool.name] = toolTraitsOf(tool);
    }
    const frozen = Object.freeze(table);
    this.#traits.set(key, frozen);
    return frozen;
  }

  /** Drops the cached definitions and traits (for tools whose description, schema or traits changed). */
  invalidateDefinitions(): void {
    this.#clearCaches();
  }

  /**
   * The reference's `prepare_call`: resolve the exact name (unknown → "did you mean" text, never
   * a guessed call), coerce the payload (JSON text, the `{"arguments": …}` wrapper, bounded
   * repair), require an object, cast per schema, validate, then parse (zod tools). Pure with
   * respect to its inputs; never throws.
   */
  prepareCall(name: string, rawArgs: unknown): PreparedCall {
    const tool = typeof name === 'string' ? this.#tools.get(name) : undefined;
    const shownName = pythonStr(name);
    if (!tool) {
      const suggestion = typeof name === 'string' ? suggestToolName(name, this.#tools.keys()) : null;
      return {
        ok: false,
        name: shownName,
        tool: null,
        params: rawArgs,
        error: toolNotFoundMessage(shownName, suggestion, this.names()),
        reason: 'not_found',
        suggestion,
        repaired: false,
      };
    }
    const fail = (reason: PrepareFailureReason, params: unknown, error: string, repaired: boolean): PreparedCallError => ({
      ok: false,
      name: shownName,
      tool,
      params,
      error,
      reason,
      suggestion: null,
      repaired,
    });

    let schema: Record<string, unknown>;
    try {
      schema = tool.jsonSchema ?? tool.toSchema().function.parameters ?? {};
    } catch (err) {
      return fail('invalid_params', rawArgs, invalidParametersMessage(shownName, [messageOf(err)]), false);
    }
    const properties = isRecord(schema.properties) ? schema.properties : undefined;
    const coerced = coerceToolArguments(rawArgs, properties, this.#repair);
    if (coerced.malformed !== null) {
      return fail(
        'malformed_json',
        coerced.value,
        malformedArgumentsMessage(shownName, coerced.malformed, JSON.stringify(schema)),
        false,
      );
    }
    const params = coerced.value;
    if (!isRecord(params)) {
      return fail('not_object', params, notAnObjectMessage(shownName, pythonTypeName(params)), coerced.repaired);
    }
    let cast: Record<string, unknown>;
    let errors: string[];
    try {
      cast = tool.castParams(params);
      errors = tool.validateParams(cast);
    } catch (err) {
      // A schema the validator cannot use (non-object root…) is the tool's fault, but the model
      // still gets an answer and the run goes on (the reference let this exception abort the run).
      return fail('invalid_params', params, invalidParametersMessage(shownName, [messageOf(err)]), coerced.repaired);
    }
    if (errors.length > 0) return fail('invalid_params', cast, invalidParametersMessage(shownName, errors), coerced.repaired);
    let parsed: ReturnType<Tool<any>['parseArgs']>;
    try {
      parsed = tool.parseArgs(cast);
    } catch (err) {
      parsed = { ok: false, errors: [messageOf(err)] };
    }
    if (!parsed.ok) return fail('invalid_params', cast, invalidParametersMessage(shownName, parsed.errors), coerced.repaired);
    return { ok: true, name: shownName, tool, params: cast, args: parsed.value, repaired: coerced.repaired };
  }

  /**
   * Prepares and runs one call under the tool's time limit and `ctx.signal`. Always resolves:
   * unknown names, bad arguments, thrown errors, error results, timeouts and cancellations all
   * come back as an error {@link ToolResult} ending with the reference's hint. A plain string is
   * never an error, whatever it starts with; only `toolResult.error(...)` is.
   */
  async execute(
    name: string,
    rawArgs: unknown,
    ctx: ToolContext = createToolContext(),
    options: ExecuteOptions = {},
  ): Promise<ToolExecution> {
    const started = performance.now();
    return this.#run(this.prepareCall(name, rawArgs), ctx, options, started);
  }

  /**
   * Runs a call already prepared with {@link prepareCall} (so a runner that prepares a batch to
   * decide what may run concurrently does not prepare twice). Same guarantees as `execute`; a
   * failed preparation resolves to its error result without running anything.
   */
  async executePrepared(
    prepared: PreparedCall,
    ctx: ToolContext = createToolContext(),
    options: ExecuteOptions = {},
  ): Promise<ToolExecution> {
    return this.#run(prepared, ctx, options, performance.now());
  }

  async #run(prepared: PreparedCall, ctx: ToolContext, options: ExecuteOptions, started: number): Promise<ToolExecution> {
    const done = (
      status: ToolExecutionStatus,
      result: ToolResult,
      extra: { value?: unknown; error?: unknown } = {},
    ): ToolExecution => ({
      name: prepared.name,
      tool: prepared.tool,
      status,
      result,
      isError: result.isError,
      value: extra.value,
      params: prepared.params,
      error: extra.error,
      durationMs: performance.now() - started,
      repaired: prepared.repaired,
    });
    if (!prepared.ok) return done(prepared.reason, errorResult(prepared.error));

    const { tool } = prepared;
    const timeoutMs = options.timeoutMs ?? tool.timeoutMs ?? this.#defaultTimeoutMs;
    const outcome = await runWithLimits(tool, prepared.args, ctx, prepared.name, timeoutMs, options.toolCallId);
    switch (outcome.kind) {
      case 'returned': {
        const value = outcome.value;
        if (isToolResult(value)) {
          if (value.isError) return done('tool_error', errorResult(value.content), { value });
          return done('ok', isEmptyContent(value.content) ? toolResult.text(noOutputMessage(prepared.name)) : value, { value });
        }
        return done('ok', successResult(prepared.name, value), { value });
      }
      case 'threw':
        return done('threw', errorResult(executionErrorMessage(prepared.name, messageOf(outcome.error))), {
          error: outcome.error,
        });
      case 'timeout':
        return done('timeout', errorResult(timeoutMessage(prepared.name, timeoutMs)));
      case 'aborted':
        return done('aborted', errorResult(cancelledMessage(prepared.name)), { error: outcome.reason });
    }
  }
}

type Outcome =
  | { kind: 'returned'; value: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted'; reason: unknown };

async function runWithLimits(
  tool: Tool<any>,
  args: unknown,
  ctx: ToolContext,
  name: string,
  timeoutMs: number,
  toolCallId: string | undefined,
): Promise<Outcome> {
  if (ctx.signal.aborted) return { kind: 'aborted', reason: ctx.signal.reason };
  const controller = new AbortController();
  let finished = false;
  const callId = toolCallId ?? ctx.toolCallId;
  const sink = ctx.emit;
  const emit = (event: ToolEvent): void => {
    // Late events from a timed-out or cancelled tool would land in a turn that has moved on.
    if (finished) return;
    try {
      sink({ ...event, tool: name, toolCallId: callId });
    } catch {
      // A broken sink must not fail the tool (see ToolEventSink).
    }
  };
  const callCtx: ToolContext = Object.freeze({ ...ctx, signal: controller.signal, emit, toolCallId: callId });

  let pending: PromiseLike<unknown>;
  try {
    const returned = tool.execute(args, callCtx) as unknown;
    // A synchronous tool has nothing to time out or cancel: answer without timers or listeners.
    if (!isThenable(returned)) {
      finished = true;
      return { kind: 'returned', value: returned };
    }
    pending = returned;
  } catch (error) {
    finished = true;
    return { kind: 'threw', error };
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const limits = new Promise<Outcome>((resolve) => {
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
    }
    onAbort = () => resolve({ kind: 'aborted', reason: ctx.signal.reason });
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  // Never rejects, so a tool failing after its timeout cannot become an unhandled rejection.
  const run = Promise.resolve(pending).then(
    (value): Outcome => ({ kind: 'returned', value }),
    (error: unknown): Outcome => ({ kind: 'threw', error }),
  );
  try {
    const outcome = await Promise.race([run, limits]);
    if (outcome.kind === 'timeout') controller.abort(new Error(`${name} timed out after ${timeoutMs} ms`));
    if (outcome.kind === 'aborted') controller.abort(outcome.reason);
    return outcome;
  } finally {
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function errorResult(content: ToolContent): ToolResult {
  if (typeof content === 'string') return toolResult.error(content + TOOL_ERROR_HINT);
  return toolResult.error([...content, { type: 'text', text: TOOL_ERROR_HINT }]);
}

function successResult(name: string, value: unknown): ToolResult {
  const content = toContent(value);
  if (isEmptyContent(content)) return toolResult.text(noOutputMessage(name));
  return typeof content === 'string' ? toolResult.text(content) : toolResult.content(content);
}

function toContent(value: unknown): ToolContent {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((block) => isRecord(block) && typeof block.type === 'string')) {
    return value as ToolContent;
  }
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

// The reference runner's ensure_nonempty_tool_result: blank text, no blocks, or only blank text
// blocks mean "no output".
function isEmptyContent(content: ToolContent): boolean {
  if (typeof content === 'string') return content.trim() === '';
  if (content.length === 0) return true;
  if (!content.every((block) => block.type === 'text' && typeof block.text === 'string')) return false;
  return content.map((block) => block.text as string).join('').trim() === '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function definitionName(definition: ToolDefinition): string {
  const fn = (definition as { function?: { name?: unknown } }).function;
  if (fn && typeof fn.name === 'string') return fn.name;
  const flat = (definition as { name?: unknown }).name;
  return typeof flat === 'string' ? flat : '';
}

/** Python `str(exc)` as far as JS allows: an Error's message, a thrown string, else its JSON/String. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (error === null || error === undefined) return pythonStr(error);
  if (typeof error === 'object') {
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error);
}
