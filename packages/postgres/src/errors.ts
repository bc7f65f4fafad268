import { NanobotError } from '@nanobot/schema';

/**
 * The database could not be reached or went away: a malformed or wrong URL, a refused or
 * dropped connection, failed authentication, a missing database, a server shutting down.
 * Nothing of the failed operation was committed.
 */
export class PostgresConnectionError extends NanobotError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('POSTGRES_CONNECTION', message, options);
  }
}

/**
 * The database holds a nanobot schema newer than this package knows (written by a later
 * version). Nothing was written; upgrade this package or point it at another schema.
 */
export class PostgresSchemaError extends NanobotError {
  /** Version found in the database. */
  readonly found: number;
  /** Highest version this package can use. */
  readonly supported: number;
  constructor(found: number, supported: number, schema: string) {
    super(
      'POSTGRES_SCHEMA_TOO_NEW',
      `Schema "${schema}" is at version ${found}, newer than the ${supported} this @nanobot/postgres supports; nothing was written. Upgrade @nanobot/postgres or use another schema.`,
    );
    this.found = found;
    this.supported = supported;
  }
}

/**
 * A write of a worker turn was refused because the turn no longer owns its session: another
 * worker took the session over with a newer fencing token (`epoch`), or this worker's lease ran
 * out (it stopped itself), or, for a write outside any turn, a worker turn holds the session's
 * lease right now. Nothing of the refused write was stored; the turn is abandoned and runs again
 * (or already ran) on the session's owner.
 */
export class SessionFencedError extends NanobotError {
  /** The session. */
  readonly key: string;
  /** The token the refused write carried (null: a write outside any turn). */
  readonly epoch: number | null;
  constructor(key: string, epoch: number | null, message: string) {
    super('SESSION_FENCED', message);
    this.key = key;
    this.epoch = epoch;
  }
}

/**
 * `publishInboundDurable` could not confirm that the message was stored: the database was
 * unreachable (or went away before the commit was acknowledged). The message may or may not be
 * stored; publishing it again with {@link idempotencyKey} stores it at most once.
 */
export class InboundPublishError extends PostgresConnectionError {
  /** The message's idempotency key: pass it as `idempotencyKey` when publishing again. */
  readonly idempotencyKey: string;
  constructor(idempotencyKey: string, options: { cause?: unknown } = {}) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`Inbound message "${idempotencyKey}" may not be stored: ${reason}. Publish it again with idempotencyKey "${idempotencyKey}" (it is stored at most once).`, options);
    this.idempotencyKey = idempotencyKey;
  }
}
