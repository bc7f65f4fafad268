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
