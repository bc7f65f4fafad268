import type { Pool } from 'pg';
import { mapConnectionErrors } from './connection-errors.js';
import { SessionFencedError } from './errors.js';
import type { SessionTurn } from './session-turn.js';
import { sleep } from './session-turn.js';
import { inTransaction } from './transaction.js';

// The `leases` table: one row per session that ever ran a worker turn. `epoch` is the fencing
// token and only grows (the row is never deleted, also not with its session); `owner` and
// `expires_at` say who holds the session right now (null: released).

/** What {@link claimTurn} got. */
export interface Claim {
  epoch: number;
  rolledBack: number;
  processed: boolean;
}

/**
 * Takes session `key`'s lease for `owner` with the next fencing token and rolls back what an
 * unfinished attempt of `inboundId` wrote (its rows, its never-claimed outbound messages), in one
 * transaction, so a write of the old attempt is either rolled back here or refused afterwards.
 * Waits (polling) while another owner holds a live lease, up to `waitMs`, then throws
 * `SessionFencedError`. A message already processed is left alone and the lease released at once.
 */
export async function claimTurn(
  pool: Pool,
  s: string,
  idleMs: number,
  request: { key: string; inboundId: string; owner: string; leaseMs: number; waitMs: number },
): Promise<Claim> {
  const { key, inboundId, owner, leaseMs } = request;
  const deadline = performance.now() + request.waitMs;
  for (;;) {
    const claim = await inTransaction(pool, `claiming session "${key}"`, idleMs, async (client) => {
      const current = await client.query<{ owner: string | null; live: boolean }>(
        `insert into ${s}.leases (session_key) values ($1) on conflict (session_key) do update set session_key = excluded.session_key
         returning owner, (owner is not null and expires_at > now()) as live`,
        [key],
      );
      const held = current.rows[0]!;
      if (held.live && held.owner !== owner) return { busy: held.owner ?? 'another worker' };
      const res = await client.query<{ epoch: string; processed: boolean; removed: string }>(
        `with up as (update ${s}.leases set epoch = epoch + 1, owner = $2, inbound_id = $3, expires_at = now() + $4 * interval '1 millisecond'
                      where session_key = $1 returning epoch),
              done as (select processed_at is not null as processed from ${s}.inbound where id = $3),
              gone as (delete from ${s}.messages where session_key = $1 and inbound_id = $3 and not exists (select 1 from done where processed) returning 1),
              bump as (update ${s}.sessions set generation = generation + 1, meta_version = meta_version + 1
                        where key = $1 and exists (select 1 from gone) returning 1),
              unsent as (delete from ${s}.outbound where inbound_id = $3 and claimed_at is null and delivered_at is null
                           and not exists (select 1 from done where processed) returning 1)
         select (select epoch from up) as epoch, coalesce((select processed from done), false) as processed, (select count(*) from gone) as removed,
                (select count(*) from bump) as bumped, (select count(*) from unsent) as unsent`,
        [key, owner, inboundId, leaseMs],
      );
      const row = res.rows[0]!;
      if (row.processed) await client.query(`update ${s}.leases set owner = null, inbound_id = null, expires_at = null where session_key = $1`, [key]);
      return { epoch: Number(row.epoch), rolledBack: Number(row.removed), processed: row.processed };
    });
    if (!('busy' in claim)) return claim;
    if (performance.now() > deadline) {
      throw new SessionFencedError(key, null, `Session "${key}" is still leased by ${claim.busy}; the turn of inbound "${inboundId}" could not take it over`);
    }
    await sleep(Math.min(250, Math.max(10, leaseMs / 8)));
  }
}

/** Gives `turn`'s lease back, if it still holds it (a newer turn's lease is left alone). */
export async function releaseTurn(pool: Pool, s: string, turn: SessionTurn): Promise<void> {
  await mapConnectionErrors(`releasing session "${turn.key}"`, () =>
    pool.query(`update ${s}.leases set owner = null, inbound_id = null, expires_at = null where session_key = $1 and epoch = $2`, [turn.key, turn.epoch]),
  );
}
