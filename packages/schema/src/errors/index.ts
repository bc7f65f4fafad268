/** Typed errors shared by every nanobot package, each with a stable `code`. */
export { NanobotError, ValidationError, SchemaError, ConfigurationError, TokenizerNotLoadedError } from './errors.js';
