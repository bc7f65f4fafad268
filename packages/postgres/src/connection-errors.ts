import { PostgresConnectionError } from './errors.js';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** Whether `error` says the connection (not the statement) failed; SQLSTATE classes 08, 28, 3D, 57P. */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (/^(08|28|3D|57P)/.test(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message);
}

/** Runs `fn`, turning connection failures into one `PostgresConnectionError` naming `what`; other errors pass through. */
export async function mapConnectionErrors<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof PostgresConnectionError || !isConnectionFailure(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new PostgresConnectionError(`PostgreSQL unavailable while ${what}: ${reason}`, { cause: error });
  }
}
