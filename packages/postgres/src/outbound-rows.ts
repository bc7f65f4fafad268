import type { Pool } from 'pg';
import type { OutboundMessage } from '@nanobot/runner';
import { mapConnectionErrors } from './connection-errors.js';
import { contentHash } from './content-hash.js';

/**
 * An outbound message handed out by `consumeOutbound`: the message itself plus, as
 * non-enumerable properties (so it still serialises and compares as the message), its delivery
 * handles. Delivery is at least once: until `ack()` is called, the message is handed out again
 * once `visibilityTimeoutMs` has passed (to this or another consumer), with the same `deliveryId`.
 */
export interface OutboundDelivery extends OutboundMessage {
  /** Stable id of this outbound message: the same on every redelivery, so a gateway can dedupe on it. */
  readonly deliveryId: string;
  /** How many times it has been handed out (1 the first time). */
  readonly deliveryCount: number;
  /**
   * Marks the message delivered: it is not handed out again. Call it after the channel accepted
   * it. Idempotent; rejects with `PostgresConnectionError` when the database is unreachable (call
   * it again; until then the message may be handed out again).
   */
  ack(): Promise<void>;
}

interface ClaimedRow {
  id: string;
  message: OutboundMessage;
  deliveries: number;
}

/** Where outbound rows live and how consumers are woken. */
export interface OutboundTable {
  pool: Pool;
  /** Quoted schema. */
  s: string;
  /** NOTIFY channel. */
  channel: string;
}

/** What {@link insertOutbound} did. */
export type InsertOutcome = 'inserted' | 'already-stored' | 'kept-earlier' | 'fenced';

/**
 * Stores `message` for delivery and NOTIFYs consumers, in one statement. Inside a turn it carries
 * the turn's (inbound id, ordinal) and fencing token: refused (`fenced`) once a newer turn holds
 * the session; stored at most once per (inbound id, ordinal) — a retry after an unknown outcome
 * finds its own row by content hash (`already-stored`); a row of an earlier attempt that was
 * released already is kept (`kept-earlier`). A turn's rows stay invisible to consumers (visible
 * at 'infinity') until the turn commits (`releaseTurnOutbound`): a turn that is rolled back and
 * run again never delivers anything of its abandoned attempt.
 */
export async function insertOutbound(
  table: OutboundTable,
  message: OutboundMessage,
  turn: { inboundId: string; ordinal: number; epoch: number } | null,
): Promise<InsertOutcome> {
  const json = JSON.stringify(message);
  const hash = contentHash(json);
  const res = await mapConnectionErrors('publishing an outbound message', () =>
    table.pool.query<{ owned: string; id: string | null; existing: string | null }>(
      `with l as (select epoch from ${table.s}.leases where session_key = $5 for share),
            ok as (select 1 from l where epoch = $8::bigint),
            ins as (insert into ${table.s}.outbound (inbound_id, ordinal, channel, chat_id, session_key, message, hash, epoch, visible_at)
                    select $1, $2, $3, $4, $5, $6::json, $7, $8::bigint, case when $8::bigint is null then null else 'infinity'::timestamptz end
                     where $8::bigint is null or exists (select 1 from ok)
                    on conflict (inbound_id, ordinal) do nothing returning id),
            n as (select pg_notify($9, id::text) from ins)
       select (select count(*) from ok) as owned, (select id from ins) as id, (select count(*) from n) as notified,
              (select hash from ${table.s}.outbound where inbound_id = $1 and ordinal = $2) as existing`,
      [turn?.inboundId ?? null, turn?.ordinal ?? null, message.channel, message.chatId, message.sessionKey ?? null, json, hash, turn?.epoch ?? null, table.channel],
    ),
  );
  const row = res.rows[0]!;
  if (row.id !== null) return 'inserted';
  if (turn && Number(row.owned) === 0) return 'fenced';
  return row.existing === hash ? 'already-stored' : 'kept-earlier';
}

/**
 * Hands out the oldest deliverable outbound message matching the filter, or null: not acknowledged,
 * not handed out within its visibility timeout, and the first unacknowledged one of its chat (a
 * chat's messages go out in order, one at a time). Marks it handed out to `consumer` until
 * `visibilityMs` from now.
 */
export async function claimOutbound(
  table: OutboundTable,
  consumer: string,
  filter: { channel?: string; chatId?: string },
  visibilityMs: number,
): Promise<OutboundDelivery | null> {
  const res = await table.pool.query<ClaimedRow>(
    `update ${table.s}.outbound o set claimed_by = $1, claimed_at = now(), visible_at = now() + $4 * interval '1 millisecond', deliveries = deliveries + 1
      where o.id = (select c.id from ${table.s}.outbound c
                     where c.delivered_at is null and (c.visible_at is null or c.visible_at <= now())
                       and ($2::text is null or c.channel = $2) and ($3::text is null or c.chat_id = $3)
                       and not exists (select 1 from ${table.s}.outbound e
                                        where e.channel = c.channel and e.chat_id = c.chat_id and e.id < c.id and e.delivered_at is null
                                          and e.visible_at is distinct from 'infinity'::timestamptz)
                     order by c.id limit 1 for update skip locked)
      returning o.id, o.message, o.deliveries`,
    [consumer, filter.channel ?? null, filter.chatId ?? null, visibilityMs],
  );
  const row = res.rows[0];
  if (!row) return null;
  const delivery = row.message as OutboundDelivery;
  Object.defineProperties(delivery, {
    deliveryId: { value: String(row.id), enumerable: false },
    deliveryCount: { value: Number(row.deliveries), enumerable: false },
    ack: { value: () => ackOutbound(table, String(row.id), consumer), enumerable: false },
  });
  return delivery;
}

/** Marks outbound message `id` delivered (idempotent) and wakes consumers waiting behind it in its chat. */
export async function ackOutbound(table: OutboundTable, id: string, consumer: string): Promise<void> {
  await mapConnectionErrors('acknowledging an outbound message', () =>
    table.pool.query(
      `with a as (update ${table.s}.outbound set delivered_at = now(), delivered_by = coalesce(claimed_by, $2) where id = $1 and delivered_at is null returning id)
       select pg_notify($3, 'ack:' || id) from a`,
      [id, consumer, table.channel],
    ),
  );
}

/** Takes (and marks delivered at once) the undelivered outbound messages of one inbound message's turn, in order. */
export async function takeTurnOutbound(table: OutboundTable, inboundId: string, consumer: string): Promise<OutboundMessage[]> {
  const rows = await table.pool.query<{ id: string; message: OutboundMessage }>(
    `update ${table.s}.outbound set delivered_at = now(), delivered_by = $2, claimed_by = $2, claimed_at = now(), deliveries = deliveries + 1
      where id in (select id from ${table.s}.outbound where inbound_id = $1 and delivered_at is null for update skip locked)
      returning id, message`,
    [inboundId, consumer],
  );
  return rows.rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => r.message);
}
