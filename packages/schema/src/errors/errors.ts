/** Base class of every error nanobot throws; `code` is stable and safe to branch on. */
export class NanobotError extends Error {
  readonly code: string;
  override readonly cause?: unknown;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** A value (message record, schema, configuration) did not have the expected shape. */
export class ValidationError extends NanobotError {
  /** Path of the offending field, e.g. `['tool_calls', 0, 'id']`. */
  readonly path: (string | number)[];

  constructor(message: string, path: (string | number)[] = [], options: { cause?: unknown; code?: string } = {}) {
    super(options.code ?? 'VALIDATION_ERROR', message, options);
    this.path = path;
  }
}

/** A JSON Schema given for tool parameters is unusable (not an object schema, cyclic, …). */
export class SchemaError extends NanobotError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('SCHEMA_ERROR', message, options);
  }
}

/** The stack was assembled wrongly (missing option, conflicting names, …). */
export class ConfigurationError extends NanobotError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CONFIGURATION_ERROR', message, options);
  }
}

/**
 * A token count needed an encoding whose rank data is not loaded, and this runtime cannot load
 * it synchronously: call `await loadTokenizer(encoding)` once before counting. Never a silent
 * fallback to counting bytes.
 */
export class TokenizerNotLoadedError extends NanobotError {
  /** The encoding that was needed (`'cl100k_base'`, `'o200k_base'`). */
  readonly encoding: string;

  constructor(encoding: string, message: string, options: { cause?: unknown } = {}) {
    super('TOKENIZER_NOT_LOADED', message, options);
    this.encoding = encoding;
  }
}
