import { PostgresConnectionError } from '../errors.js';

/** Runs `fn` until it does not fail with `PostgresConnectionError` (a test's client riding out a restart or a refused start). */
export async function retryOnConnectionError<T>(fn: () => Promise<T>): Promise<T> {
  for (let delay = 200; ; delay = Math.min(delay * 2, 2000)) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof PostgresConnectionError)) throw error;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

