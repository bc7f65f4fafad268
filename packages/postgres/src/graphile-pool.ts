import type { Pool, PoolClient } from 'pg';
import { isConnectionFailure } from './connection-errors.js';
import { sleep } from './session-turn.js';

/**
 * graphile-worker's `withRetries` retries only errors whose `code` is on its list, and a
 * connection that is refused or drops mid-query has none: a job whose completion hits a database
 * blip kills its worker slot (graphile-worker 0.16 then writes a stack trace to stderr with
 * `console.trace`, whatever its logger says), and a failed first task lookup is cached for ever.
 * This view of the pool gives those failures the code graphile-worker retries with backoff
 * (`57P03`, "cannot connect now"): connecting, and the statements that are safe to repeat —
 * completing and failing a job (both keyed by job id and owner) and the task lookup. Taking a
 * job is not retried this way (a retry after an unknown outcome could lock a second job); its
 * errors stay visible to the bus's supervisor. Once `closing()` is true nothing is converted, so
 * a stop with the database unreachable ends instead of waiting for it.
 */
export function retryingPoolFor(pool: Pool, closing: () => boolean): Pool {
  const retryable = (error: unknown): unknown => {
    if (closing() || !isConnectionFailure(error)) return error;
    const message = error instanceof Error ? error.message : String(error);
    return Object.assign(new Error(`${message} (retried)`, { cause: error }), { code: '57P03' });
  };
  const safeToRepeat = (config: unknown): boolean => {
    const text = typeof config === 'string' ? config : typeof config === 'object' && config !== null ? (config as { text?: unknown }).text : undefined;
    if (typeof text !== 'string') return false;
    return text.includes('_private_tasks') || text.includes('last_error =') || (text.includes('delete from') && text.includes('_private_jobs'));
  };
  const wrapClient = (client: PoolClient): PoolClient =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'query') {
          return (...args: unknown[]) => {
            const result = (target.query as (...a: unknown[]) => unknown)(...args);
            if (!safeToRepeat(args[0]) || !(result instanceof Promise)) return result;
            return result.catch((error: unknown) => Promise.reject(retryable(error)));
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query') {
        // graphile-worker's cron loop reads and writes through the pool directly, and a failure
        // there stops the whole runner (and rejects a promise nobody handles): its statements are
        // reads and idempotent upserts, so they wait for the database instead.
        return async (...args: unknown[]) => {
          for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
            try {
              return await (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
            } catch (error) {
              if (closing() || !isConnectionFailure(error)) throw error;
              await sleep(delay);
            }
          }
        };
      }
      if (prop === 'connect') {
        return (callback?: (...a: unknown[]) => void) => {
          // The callback form is graphile-worker's LISTEN client, which reconnects by itself.
          if (callback) return target.connect(callback as never);
          return target.connect().then(wrapClient, (error: unknown) => Promise.reject(retryable(error)));
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
