import type { Pool } from 'pg';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';
import { PostgresConnectionError } from './errors.js';

/** Tables the liveness statements use: quoted nanobot and graphile-worker schemas. */
export interface LivenessTables {
  pool: Pool;
  s: string;
  ws: string;
}

/**
 * One heartbeat of a worker process: refreshes `workers` rows for the process and its
 * graphile-worker slots and, in the same statement, renews the leases of its running turns (only
 * those still carrying their token and owner). Returns the session keys whose lease was renewed.
 * Gives up (discarding the connection) after `timeoutMs`, so a partition cannot hang it.
 */
export async function heartbeat(
  tables: LivenessTables,
  beat: { processId: string; workerIds: readonly string[]; turns: readonly { key: string; epoch: number }[]; leaseMs: number; timeoutMs: number },
): Promise<Set<string>> {
  return mapConnectionErrors('heartbeating', async () => {
    const { client, release } = await withTimeout(checkout(tables.pool), beat.timeoutMs, (late) => void late.then((c) => c.release(true), () => undefined));
    let broken = false;
    try {
      const res = await withTimeout(
        client.query<{ renewed: string[] }>(
          `with hb as (insert into ${tables.s}.workers (worker_id, process_id, heartbeat_at) select w, $2, now() from unnest($1::text[]) as w
                        on conflict (worker_id) do update set heartbeat_at = now(), process_id = excluded.process_id returning 1),
                renew as (update ${tables.s}.leases l set expires_at = now() + $5 * interval '1 millisecond'
                            from unnest($3::text[], $4::bigint[]) as a(k, e)
                           where l.session_key = a.k and l.epoch = a.e and l.owner = $2 returning l.session_key)
           select array(select session_key from renew) as renewed, (select count(*) from hb) as beats`,
          [[beat.processId, ...beat.workerIds], beat.processId, beat.turns.map((t) => t.key), beat.turns.map((t) => t.epoch), beat.leaseMs],
        ),
        beat.timeoutMs,
        () => {
          broken = true;
        },
      );
      return new Set(res.rows[0]!.renewed);
    } catch (error) {
      broken = true;
      throw error;
    } finally {
      release(broken);
    }
  });
}

/**
 * Hands the jobs of dead workers back to the queue: graphile-worker slots that hold a job or a
 * queue lock taken longer than `leaseMs` ago and whose heartbeat is older than `leaseMs` (or
 * absent). Wakes idle slots everywhere (graphile-worker's `jobs:insert` notification) when it
 * freed any, so the takeover does not wait for a poll. Also forgets workers silent for ten
 * leases. Returns the dead slots' ids.
 */
export async function takeOverDeadWorkers(tables: LivenessTables, leaseMs: number): Promise<string[]> {
  const { s, ws } = tables;
  const res = await mapConnectionErrors('taking over dead workers', () =>
    tables.pool.query<{ dead: string[] }>(
      `with lapse as (select $1 * interval '1 millisecond' as d),
            locks as (select locked_by, locked_at from ${ws}._private_jobs where locked_by is not null
                      union all select locked_by, locked_at from ${ws}._private_job_queues where locked_by is not null),
            dead as (select distinct k.locked_by as w from locks k, lapse
                      where k.locked_at < now() - lapse.d
                        and not exists (select 1 from ${s}.workers h where h.worker_id = k.locked_by and h.heartbeat_at > now() - lapse.d)),
            freed as (select ${ws}.force_unlock_workers(array(select w from dead)) where exists (select 1 from dead)),
            woken as (select pg_notify('jobs:insert', json_build_object('count', 100)::text) from freed),
            gone as (delete from ${s}.workers using lapse where heartbeat_at < now() - 10 * lapse.d returning 1)
       select array(select w from dead) as dead, (select count(*) from woken) as woken, (select count(*) from gone) as forgotten`,
      [leaseMs],
    ),
  );
  return res.rows[0]!.dead;
}

/**
 * Unlocks jobs (and their queues) that this process's own live slots hold without running them:
 * left locked by a job lookup whose reply was lost. graphile-worker would keep them locked as long
 * as the slot lives; only locks older than `leaseMs` are touched, so a lookup in progress is not.
 */
export async function releaseOrphanedLocks(tables: LivenessTables, workerIds: readonly string[], activeJobIds: readonly string[], leaseMs: number): Promise<number> {
  if (workerIds.length === 0) return 0;
  const { ws } = tables;
  const res = await mapConnectionErrors('releasing orphaned job locks', () =>
    tables.pool.query<{ jobs: string; queues: string }>(
      `with j as (update ${ws}._private_jobs set locked_by = null, locked_at = null
                   where locked_by = any($1::text[]) and not (id = any($2::bigint[])) and locked_at < now() - $3 * interval '1 millisecond' returning 1),
            q as (update ${ws}._private_job_queues q set locked_by = null, locked_at = null
                   where q.locked_by = any($1::text[]) and q.locked_at < now() - $3 * interval '1 millisecond'
                     and not exists (select 1 from ${ws}._private_jobs x where x.job_queue_id = q.id and x.locked_by = q.locked_by and x.id = any($2::bigint[])) returning 1)
       select (select count(*) from j) as jobs, (select count(*) from q) as queues`,
      [workerIds, activeJobIds, leaseMs],
    ),
  );
  return Number(res.rows[0]!.jobs) + Number(res.rows[0]!.queues);
}

/** `promise`, or a `PostgresConnectionError` after `ms` (then `onLate` gets the promise, to clean up). */
function withTimeout<T>(promise: Promise<T>, ms: number, onLate: (late: Promise<T>) => void): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate(promise);
      reject(new PostgresConnectionError(`PostgreSQL did not answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
