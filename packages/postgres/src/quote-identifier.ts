import { ConfigurationError } from '@nanobot/schema';

/** A schema name as a quoted SQL identifier; only `[a-z_][a-z0-9_]*` names are accepted. */
export function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new ConfigurationError(`Invalid PostgreSQL schema name "${name}": use lower-case letters, digits and _`);
  return `"${name}"`;
}
