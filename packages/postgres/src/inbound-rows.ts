import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { InboundMessage } from '@nanobot/runner';
import { inTransaction } from './transaction.js';

/**
 * The idempotency key of an inbound message: `metadata.idempotency_key` when given, else derived
 * from the channel's own message id (`<channel>:<chatId>:<metadata.message_id>`), else a new
 * random one (generated once per publish call and returned by it).
 */
export function inboundIdempotencyKey(message: InboundMessage): string {
  const given = message.metadata?.idempotency_key;
  if (typeof given === 'string' && given !== '') return given;
  const channelId = message.metadata?.message_id;
  if (typeof channelId === 'string' || typeof channelId === 'number') return `${message.channel}:${message.chatId}:${String(channelId)}`;
  return randomUUID();
}

/** Where inbound rows and their jobs go. */
export interface InboundTable {
  pool: Pool;
  /** Quoted nanobot schema and graphile-worker schema. */
  s: string;
  ws: string;
  task: string;
  maxAttempts: number;
  idleMs: number;
}

/**
 * Stores `message` under `id` and queues its job (queue `nanobot:<session key>`, job key `id`)
 * in one transaction; a message already stored under `id` is left as it is (no second job). So
 * publishing again after an unknown outcome stores it at most once.
 */
export async function storeInbound(table: InboundTable, id: string, key: string, message: InboundMessage): Promise<void> {
  await inTransaction(table.pool, 'publishing an inbound message', table.idleMs, async (client) => {
    const inserted = await client.query(`insert into ${table.s}.inbound (id, session_key, message) values ($1, $2, $3::json) on conflict (id) do nothing`, [id, key, JSON.stringify(message)]);
    if (inserted.rowCount === 1) {
      await client.query(
        `select ${table.ws}.add_job($1, json_build_object('id', $2::text), queue_name => $3, max_attempts => $4, job_key => $2, job_key_mode => 'unsafe_dedupe')`,
        [table.task, id, `nanobot:${key}`, table.maxAttempts],
      );
    }
  });
}
