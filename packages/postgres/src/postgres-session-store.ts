import type { Pool, PoolClient } from 'pg';
import type { Message } from '@nanobot/schema';
import { Session, SessionConflictError, SessionStoreError } from '@nanobot/session';
import type { SessionLoadResult, SessionStore } from '@nanobot/session';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';
import { guardPool } from './guard-pool.js';
import { quoteIdentifier } from './quote-identifier.js';

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** A `pg` pool (see `createPool`); the store never ends it. */
  pool: Pool;
  /** Schema holding the tables (default `nanobot`); `migrate(pool, schema)` must have run. */
  schema?: string;
  /** Clock for new sessions' timestamps. */
  now?: () => Date;
}

interface Tracking {
  /** Whether a `sessions` row existed when this session was loaded or last saved. */
  stored: boolean;
  /** Leading messages of the session that are in the database. */
  persistedCount: number;
  /** Rows of the session in the database after our last read or write. */
  rowCount: number;
  structureVersion: number;
  metaJson: string;
  updatedAt: string;
  metaVersion: number;
  generation: number;
}

interface SessionRow {
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  last_consolidated: number;
  provider_state: unknown;
  meta_version: string;
  generation: string;
}

function metaJson(session: Session): string {
  return JSON.stringify([session.createdAt, session.metadata, session.lastConsolidated, session.providerState ?? null]);
}

function uniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * Sessions in PostgreSQL: one `sessions` row (metadata, consolidation pointer, provider state,
 * an optimistic `meta_version` and a rewrite `generation`) and one append-only `messages` row per
 * message, keyed by (session, seq) under a unique constraint, so two writers can never overwrite
 * each other. A save is one transaction: appends only insert rows after the last stored one;
 * a metadata change or a rewrite (`clear`, `replaceMessages`) refuses with `SessionConflictError`
 * when another writer changed the session since this store read it, and a connection failure is
 * one `PostgresConnectionError` with nothing committed.
 *
 * Inside a `PostgresMessageBus` worker, rows carry the id of the inbound message whose turn wrote
 * them, so a retried turn can be rolled back before it runs again (see `beginAttempt`).
 */
export class PostgresSessionStore implements SessionStore {
  readonly schema: string;
  readonly #pool: Pool;
  readonly #s: string;
  readonly #now: () => Date;
  readonly #tracking = new WeakMap<Session, Tracking>();
  /** Inbound id of the turn each row was written by (null: outside a worker turn). */
  readonly #tags = new WeakMap<Message, string | null>();
  readonly #attempts = new Map<string, string>();

  constructor(options: PostgresSessionStoreOptions) {
    this.#pool = guardPool(options.pool);
    this.schema = options.schema ?? 'nanobot';
    this.#s = quoteIdentifier(this.schema);
    this.#now = options.now ?? (() => new Date());
  }

  #checkKey(key: string): void {
    if (typeof key !== 'string' || key === '') throw new SessionStoreError('SESSION_KEY_INVALID', 'A session key must be a non-empty string');
  }

  async #transaction<T>(what: string, fn: (client: PoolClient) => Promise<T>, isolation = 'read committed'): Promise<T> {
    return mapConnectionErrors(what, async () => {
      const { client, release } = await checkout(this.#pool);
      let broken = false;
      try {
        await client.query(`begin isolation level ${isolation}`);
        try {
          const result = await fn(client);
          await client.query('commit');
          return result;
        } catch (error) {
          await client.query('rollback').catch(() => {
            broken = true;
          });
          throw error;
        }
      } finally {
        release(broken);
      }
    });
  }

  /** Loads a session (or a fresh, unsaved one) from one consistent snapshot (a single statement). */
  async load(key: string): Promise<SessionLoadResult> {
    this.#checkKey(key);
    const res = await mapConnectionErrors(`loading session "${key}"`, () =>
      this.#pool.query<SessionRow & { rows: { message: Message; inbound_id: string | null }[] | null }>(
        `select s.*, (select json_agg(json_build_object('message', m.message, 'inbound_id', m.inbound_id) order by m.seq)
                        from ${this.#s}.messages m where m.session_key = s.key) as rows
           from ${this.#s}.sessions s where s.key = $1`,
        [key],
      ),
    );
    const row = res.rows[0];
    if (!row) {
      const session = new Session({ key }, this.#now);
      this.#track(session, { stored: false, rowCount: 0, metaVersion: 0, generation: 0 });
      return { session, warnings: [], created: true };
    }
    const messages = (row.rows ?? []).map((r) => {
      this.#tags.set(r.message, r.inbound_id);
      return r.message;
    });
    const session = new Session(
      {
        key,
        messages,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        metadata: row.metadata,
        lastConsolidated: row.last_consolidated,
        providerState: row.provider_state,
      },
      this.#now,
    );
    this.#track(session, { stored: true, rowCount: messages.length, metaVersion: Number(row.meta_version), generation: Number(row.generation) });
    return { session, warnings: [], created: false };
  }

  #track(session: Session, state: { stored: boolean; rowCount: number; metaVersion: number; generation: number }): void {
    this.#tracking.set(session, {
      ...state,
      persistedCount: state.stored ? session.messages.length : 0,
      structureVersion: session.structureVersion,
      metaJson: state.stored ? metaJson(session) : '',
      updatedAt: state.stored ? session.updatedAt : '',
    });
  }

  /**
   * Persists what changed since the last load/save, in one transaction. Throws
   * `SessionConflictError` when another writer changed what this save would overwrite (the
   * metadata, or the whole session for a rewrite), and `PostgresConnectionError` when the server
   * is unreachable; in both cases nothing was written.
   */
  async save(session: Session): Promise<void> {
    this.#checkKey(session.key);
    const key = session.key;
    const tag = this.#attempts.get(key) ?? null;
    const tracked = this.#tracking.get(session);
    const messages = session.messages;
    const newMeta = metaJson(session);
    const next = await this.#transaction(`saving session "${key}"`, async (client) => {
      const head = await client.query<{ meta_version: string; generation: string; rows: string }>(
        `select meta_version, generation, (select count(*) from ${this.#s}.messages m where m.session_key = s.key) as rows
           from ${this.#s}.sessions s where key = $1 for update`,
        [key],
      );
      const row = head.rows[0];
      if (!row) {
        // New, or deleted by someone else since we read it: written whole rather than lost.
        const inserted = await client.query(
          `insert into ${this.#s}.sessions (key, created_at, updated_at, metadata, last_consolidated, provider_state)
           values ($1, $2, $3, $4::json, $5, $6::json) on conflict (key) do nothing`,
          [key, session.createdAt, session.updatedAt, JSON.stringify(session.metadata), session.lastConsolidated, JSON.stringify(session.providerState ?? null)],
        );
        if (inserted.rowCount !== 1) throw new SessionConflictError(key, `Session "${key}" was created by another writer; reload it`);
        await this.#insertRows(client, key, messages, 0, tag);
        return { rowCount: messages.length, metaVersion: 0, generation: 0 };
      }
      if (!tracked || !tracked.stored) throw new SessionConflictError(key, `Session "${key}" is already stored; load it before saving`);
      let metaVersion = Number(row.meta_version);
      let generation = Number(row.generation);
      let rowCount = Number(row.rows);
      const structural = tracked.structureVersion !== session.structureVersion || messages.length < tracked.persistedCount;
      if (structural) {
        if (generation !== tracked.generation || metaVersion !== tracked.metaVersion || rowCount !== tracked.rowCount) {
          throw new SessionConflictError(key, `Session "${key}" was changed by another writer; reload it before rewriting`);
        }
        await client.query(`delete from ${this.#s}.messages where session_key = $1`, [key]);
        await this.#insertRows(client, key, messages, 0, tag);
        generation += 1;
        metaVersion += 1;
        rowCount = messages.length;
        await client.query(
          `update ${this.#s}.sessions set created_at = $2, updated_at = $3, metadata = $4::json, last_consolidated = $5, provider_state = $6::json,
             meta_version = $7, generation = $8 where key = $1`,
          [key, session.createdAt, session.updatedAt, JSON.stringify(session.metadata), session.lastConsolidated, JSON.stringify(session.providerState ?? null), metaVersion, generation],
        );
        return { rowCount, metaVersion, generation };
      }
      if (generation !== tracked.generation) {
        throw new SessionConflictError(key, `Session "${key}" was rewritten by another writer; reload it before appending`);
      }
      const fresh = messages.slice(tracked.persistedCount);
      if (fresh.length > 0) {
        const max = await client.query<{ next: string }>(`select coalesce(max(seq) + 1, 0) as next from ${this.#s}.messages where session_key = $1`, [key]);
        await this.#insertRows(client, key, fresh, Number(max.rows[0]!.next), tag);
        rowCount += fresh.length;
      }
      if (newMeta !== tracked.metaJson) {
        if (metaVersion !== tracked.metaVersion) {
          throw new SessionConflictError(key, `Session "${key}" metadata was changed by another writer; reload it`);
        }
        metaVersion += 1;
        await client.query(
          `update ${this.#s}.sessions set created_at = $2, updated_at = $3, metadata = $4::json, last_consolidated = $5, provider_state = $6::json, meta_version = $7 where key = $1`,
          [key, session.createdAt, session.updatedAt, JSON.stringify(session.metadata), session.lastConsolidated, JSON.stringify(session.providerState ?? null), metaVersion],
        );
      } else if (session.updatedAt !== tracked.updatedAt) {
        await client.query(`update ${this.#s}.sessions set updated_at = $2 where key = $1`, [key, session.updatedAt]);
      }
      return { rowCount, metaVersion, generation };
    }).catch((error: unknown) => {
      if (uniqueViolation(error)) throw new SessionConflictError(key, `Session "${key}" got a row from another writer at the same position; reload it`);
      throw error;
    });
    for (const message of messages) if (!this.#tags.has(message)) this.#tags.set(message, tag);
    this.#tracking.set(session, {
      stored: true,
      persistedCount: messages.length,
      rowCount: next.rowCount,
      structureVersion: session.structureVersion,
      metaJson: newMeta,
      updatedAt: session.updatedAt,
      metaVersion: next.metaVersion,
      generation: next.generation,
    });
  }

  async #insertRows(client: PoolClient, key: string, messages: readonly Message[], firstSeq: number, tag: string | null): Promise<void> {
    if (messages.length === 0) return;
    // A row keeps the tag of the turn that first wrote it, also when a rewrite writes it again.
    const tags = messages.map((m) => (this.#tags.has(m) ? this.#tags.get(m)! : tag));
    await client.query(
      `insert into ${this.#s}.messages (session_key, seq, message, inbound_id)
       select $1, $2::bigint + t.ord - 1, t.message, t.tag from unnest($3::json[], $4::text[]) with ordinality as t(message, tag, ord)`,
      [key, firstSeq, messages.map((m) => JSON.stringify(m)), tags],
    );
  }

  /** Deletes the session and its messages; returns whether it existed. */
  async delete(key: string): Promise<boolean> {
    this.#checkKey(key);
    return this.#transaction(`deleting session "${key}"`, async (client) => {
      const res = await client.query(`delete from ${this.#s}.sessions where key = $1`, [key]);
      return (res.rowCount ?? 0) > 0;
    });
  }

  /** Keys of all stored sessions, sorted. */
  async list(): Promise<string[]> {
    const res = await mapConnectionErrors('listing sessions', () => this.#pool.query<{ key: string }>(`select key from ${this.#s}.sessions`));
    return res.rows.map((r) => r.key).sort();
  }

  /**
   * Starts the turn of inbound message `inboundId` on session `key`: deletes (in one transaction)
   * the rows an earlier, unfinished attempt of that same message wrote, then tags this store's
   * next writes to `key` with it. Called by `PostgresMessageBus` before it hands the message to
   * the loop; a session's turns never overlap (one graphile-worker queue per session).
   * Returns how many rows were rolled back.
   */
  async beginAttempt(key: string, inboundId: string): Promise<number> {
    this.#checkKey(key);
    // One statement, so atomic. The rollback is a rewrite: a session object read before it must
    // not append or rewrite blindly, hence the generation bump when rows went.
    const res = await mapConnectionErrors(`rolling back an unfinished turn of "${key}"`, () =>
      this.#pool.query<{ removed: string }>(
        `with gone as (delete from ${this.#s}.messages where session_key = $1 and inbound_id = $2 returning 1),
              bump as (update ${this.#s}.sessions set generation = generation + 1, meta_version = meta_version + 1
                        where key = $1 and exists (select 1 from gone) returning 1)
         select (select count(*) from gone) as removed, (select count(*) from bump) as bumped`,
        [key, inboundId],
      ),
    );
    this.#attempts.set(key, inboundId);
    return Number(res.rows[0]!.removed);
  }

  /** Ends the attempt begun by {@link beginAttempt}: later writes to `key` are untagged again. */
  endAttempt(key: string, inboundId: string): void {
    if (this.#attempts.get(key) === inboundId) this.#attempts.delete(key);
  }
}
