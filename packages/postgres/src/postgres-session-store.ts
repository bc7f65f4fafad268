import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { Message } from '@nanobot/schema';
import { Session, SessionConflictError, SessionStoreError } from '@nanobot/session';
import type { SessionLoadResult, SessionStore } from '@nanobot/session';
import { isConnectionFailure, mapConnectionErrors } from './connection-errors.js';
import { contentHash } from './content-hash.js';
import { PostgresConnectionError, SessionFencedError } from './errors.js';
import { guardPool } from './guard-pool.js';
import { quoteIdentifier } from './quote-identifier.js';
import { claimTurn, releaseTurn } from './session-leases.js';
import { retryWhileLive, TurnState } from './session-turn.js';
import type { SessionTurn } from './session-turn.js';
import { inTransaction } from './transaction.js';

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** A `pg` pool (see `createPool`); the store never ends it. */
  pool: Pool;
  /** Schema holding the tables (default `nanobot`); `migrate(pool, schema)` must have run. */
  schema?: string;
  /** Clock for new sessions' timestamps. */
  now?: () => Date;
  /**
   * The server ends a session whose transaction sits idle this long (default 5000 ms), so that a
   * client cut off mid-transaction by a partition does not hold the rows other workers need.
   */
  idleTransactionTimeoutMs?: number;
}

/** What this store knows the database holds for a session object. */
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
  /** A save whose commit outcome is unknown (the connection failed): resolved by the next save. */
  pending: PendingWrite | null;
}

interface PendingWrite {
  /** The id the failed save wrote into `sessions.last_write`. */
  writeId: string;
  /** Rows it inserted, by position and content hash (empty when it inserted none or got no further). */
  firstSeq: number;
  hashes: string[];
  /** The tracking that holds if it committed. */
  next: Omit<Tracking, 'pending'>;
}

interface Head {
  metaVersion: number;
  generation: number;
  /** Id of the last save that committed. */
  lastWrite: string | null;
  rows: number;
  /** The seq after the last row. */
  next: number;
}

interface Lease {
  epoch: number;
  /** Held by a live turn right now. */
  leased: boolean;
}

function metaJson(session: Session): string {
  return JSON.stringify([session.createdAt, session.metadata, session.lastConsolidated, session.providerState ?? null]);
}

function uniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * Sessions in PostgreSQL: one `sessions` row (metadata, consolidation pointer, provider state,
 * an optimistic `meta_version`, a rewrite `generation`, the id of the last save) and one
 * append-only `messages` row per message, keyed by (session, seq) under a unique constraint and
 * carrying its content hash, so two writers can never overwrite each other and a save retried
 * after an unknown commit outcome never writes a row twice.
 *
 * Inside a `PostgresMessageBus` worker, a session is written by one turn at a time under a lease
 * whose fencing token every write carries (see {@link beginAttempt}); rows carry the id of the
 * inbound message whose turn wrote them, so a retried turn can be rolled back before it runs again.
 */
export class PostgresSessionStore implements SessionStore {
  readonly schema: string;
  readonly #pool: Pool;
  readonly #s: string;
  readonly #now: () => Date;
  readonly #idleMs: number;
  readonly #tracking = new WeakMap<Session, Tracking>();
  /** Inbound id of the turn each row was written by (null: outside a worker turn). */
  readonly #tags = new WeakMap<Message, string | null>();
  /** The running turn per session key: a session loaded meanwhile belongs to it. */
  readonly #turns = new Map<string, TurnState>();
  readonly #bound = new WeakMap<Session, TurnState>();
  readonly #owner = `store-${randomUUID()}`;

  constructor(options: PostgresSessionStoreOptions) {
    this.#pool = guardPool(options.pool);
    this.schema = options.schema ?? 'nanobot';
    this.#s = quoteIdentifier(this.schema);
    this.#now = options.now ?? (() => new Date());
    this.#idleMs = options.idleTransactionTimeoutMs ?? 5000;
  }

  /** The pool this store writes through (the bus checks it shares it). */
  get pool(): Pool {
    return this.#pool;
  }

  #checkKey(key: string): void {
    if (typeof key !== 'string' || key === '') throw new SessionStoreError('SESSION_KEY_INVALID', 'A session key must be a non-empty string');
  }

  /**
   * Loads a session (or a fresh, unsaved one) from one consistent snapshot (a single statement).
   * While a worker turn of `key` runs in this process, the session belongs to that turn: its
   * saves carry the turn's fencing token.
   */
  async load(key: string): Promise<SessionLoadResult> {
    this.#checkKey(key);
    const turn = this.#turns.get(key);
    const res = await mapConnectionErrors(`loading session "${key}"`, () =>
      this.#pool.query<{ created_at: string; updated_at: string; metadata: Record<string, unknown>; last_consolidated: number; provider_state: unknown; meta_version: string; generation: string; rows: { message: Message; inbound_id: string | null }[] | null }>(
        `select s.*, (select json_agg(json_build_object('message', m.message, 'inbound_id', m.inbound_id) order by m.seq)
                        from ${this.#s}.messages m where m.session_key = s.key) as rows
           from ${this.#s}.sessions s where s.key = $1`,
        [key],
      ),
    );
    const row = res.rows[0];
    let result: SessionLoadResult;
    if (!row) {
      const session = new Session({ key }, this.#now);
      this.#track(session, { stored: false, rowCount: 0, metaVersion: 0, generation: 0 });
      result = { session, warnings: [], created: true };
    } else {
      const messages = (row.rows ?? []).map((r) => {
        this.#tags.set(r.message, r.inbound_id);
        return r.message;
      });
      const session = new Session(
        { key, messages, createdAt: row.created_at, updatedAt: row.updated_at, metadata: row.metadata, lastConsolidated: row.last_consolidated, providerState: row.provider_state },
        this.#now,
      );
      this.#track(session, { stored: true, rowCount: messages.length, metaVersion: Number(row.meta_version), generation: Number(row.generation) });
      result = { session, warnings: [], created: false };
    }
    if (turn) this.#bound.set(result.session, turn);
    return result;
  }

  #track(session: Session, state: { stored: boolean; rowCount: number; metaVersion: number; generation: number }): void {
    this.#tracking.set(session, {
      ...state,
      persistedCount: state.stored ? session.messages.length : 0,
      structureVersion: session.structureVersion,
      metaJson: state.stored ? metaJson(session) : '',
      updatedAt: state.stored ? session.updatedAt : '',
      pending: null,
    });
  }

  /**
   * Persists what changed since the last load/save, in one transaction.
   *
   * Refused, with nothing written: `SessionConflictError` when another writer changed what this
   * save would overwrite (the metadata, or the whole session for a rewrite); `SessionFencedError`
   * when the session belongs to a worker turn this save is not part of (a newer turn took the
   * session over, this turn's worker stopped it, or — outside any turn — a turn holds its lease).
   *
   * A lost connection: inside a worker turn the save is retried until it is known to be stored
   * or the turn loses its session (`SessionFencedError`). Outside a turn it rejects with
   * `PostgresConnectionError`. If the connection failed before the COMMIT was sent, nothing was
   * written. If it failed while committing, the outcome is unknown: the transaction committed
   * whole or not at all. Saving the same session object again resolves it — the store recognises
   * its own rows by position and content hash (and the save's id on the session row) and writes
   * only what is missing, never a row twice; a session loaded afresh shows what committed.
   */
  async save(session: Session): Promise<void> {
    this.#checkKey(session.key);
    const turn = this.#bound.get(session) ?? null;
    await retryWhileLive(turn, () => this.#saveOnce(session, turn), (e) => e instanceof PostgresConnectionError);
  }

  async #saveOnce(session: Session, turn: TurnState | null): Promise<void> {
    const key = session.key;
    if (turn && !turn.live) throw turn.error();
    const tag = turn?.inboundId ?? null;
    const tracked = this.#tracking.get(session);
    const messages = session.messages;
    const newMeta = metaJson(session);
    const meta = [session.createdAt, session.updatedAt, JSON.stringify(session.metadata), session.lastConsolidated, JSON.stringify(session.providerState ?? null)];
    const writeId = randomUUID();
    // Set once the transaction knows what it writes: what holds if it commits.
    let intent: PendingWrite | null = null;
    try {
      const next = await inTransaction(this.#pool, `saving session "${key}"`, this.#idleMs, async (client) => {
        const { head, lease } = await this.#head(client, key);
        this.#checkFence(key, turn, lease);
        const known = tracked?.pending ? await this.#resolvePending(client, key, tracked, head) : tracked;
        if (!head) {
          // New, or deleted by someone else since we read it: written whole rather than lost.
          const rows = this.#rows(messages, turn, tag, 0);
          intent = { writeId, firstSeq: 0, hashes: rows.hashes, next: this.#nextTracking(session, newMeta, { rowCount: messages.length, metaVersion: 0, generation: 0 }) };
          const res = await client.query<{ created: string }>(
            `with s as (insert into ${this.#s}.sessions (key, created_at, updated_at, metadata, last_consolidated, provider_state, last_write)
                        values ($1, $2, $3, $4::json, $5, $6::json, $7) on conflict (key) do nothing returning 1),
                  r as (${this.#insertSql(8, 'where exists (select 1 from s)')})
             select (select count(*) from s) as created`,
            [key, ...meta, writeId, ...rows.params],
          );
          if (Number(res.rows[0]!.created) !== 1) throw new SessionConflictError(key, `Session "${key}" was created by another writer; reload it`);
          return intent.next;
        }
        if (!known || !known.stored) throw new SessionConflictError(key, `Session "${key}" is already stored; load it before saving`);
        let { metaVersion, generation } = head;
        const structural = known.structureVersion !== session.structureVersion || messages.length < known.persistedCount;
        if (structural) {
          if (generation !== known.generation || metaVersion !== known.metaVersion || head.rows !== known.rowCount) {
            throw new SessionConflictError(key, `Session "${key}" was changed by another writer; reload it before rewriting`);
          }
          generation += 1;
          metaVersion += 1;
          const rows = this.#rows(messages, turn, tag, 0);
          intent = { writeId, firstSeq: 0, hashes: rows.hashes, next: this.#nextTracking(session, newMeta, { rowCount: messages.length, metaVersion, generation }) };
          await client.query(
            `with d as (delete from ${this.#s}.messages where session_key = $1)
             update ${this.#s}.sessions set created_at = $2, updated_at = $3, metadata = $4::json, last_consolidated = $5, provider_state = $6::json,
               meta_version = $7, generation = $8, last_write = $9 where key = $1`,
            [key, ...meta, metaVersion, generation, writeId],
          );
          // Its own statement: the rows deleted above must be gone before the unique check sees the new ones.
          await client.query(this.#insertSql(2, ''), [key, ...rows.params]);
          return intent.next;
        }
        if (generation !== known.generation) {
          throw new SessionConflictError(key, `Session "${key}" was rewritten by another writer; reload it before appending`);
        }
        const fresh = messages.slice(known.persistedCount);
        const metaChanged = newMeta !== known.metaJson;
        if (metaChanged && metaVersion !== known.metaVersion) {
          throw new SessionConflictError(key, `Session "${key}" metadata was changed by another writer; reload it`);
        }
        if (metaChanged) metaVersion += 1;
        const rows = this.#rows(fresh, turn, tag, head.next);
        intent = { writeId, firstSeq: head.next, hashes: rows.hashes, next: this.#nextTracking(session, newMeta, { rowCount: head.rows + fresh.length, metaVersion, generation }) };
        if (fresh.length === 0 && !metaChanged && session.updatedAt === known.updatedAt) return intent.next;
        // Rows and head in one statement; the metadata only when this save changed it (another
        // writer's metadata change, made since we read it, is kept otherwise).
        await client.query(
          `with r as (${this.#insertSql(2, '')})
           update ${this.#s}.sessions set updated_at = $8, meta_version = $12, last_write = $13,
             created_at = case when $14 then $7 else created_at end, metadata = case when $14 then $9::json else metadata end,
             last_consolidated = case when $14 then $10 else last_consolidated end, provider_state = case when $14 then $11::json else provider_state end
           where key = $1`,
          [key, ...rows.params, ...meta, metaVersion, writeId, metaChanged],
        );
        return intent.next;
      });
      for (const message of messages) if (!this.#tags.has(message)) this.#tags.set(message, tag);
      this.#tracking.set(session, { ...next, pending: null });
    } catch (error) {
      if (uniqueViolation(error)) throw new SessionConflictError(key, `Session "${key}" got a row from another writer at the same position; reload it`);
      if (error instanceof PostgresConnectionError && tracked) {
        // The commit may or may not have happened: remember what it would have written. With no
        // intent yet the transaction never got to write; an older unresolved save stays pending.
        this.#tracking.set(session, { ...tracked, pending: intent ?? tracked.pending });
      }
      throw error;
    }
  }

  /** The session's head row (locked for the transaction) and lease (share-locked) in one round trip. */
  async #head(client: PoolClient, key: string): Promise<{ head: Head | null; lease: Lease | null }> {
    const res = await client.query<{ head: Record<string, string | number | null> | null; lease: { epoch: number | string; leased: boolean } | null }>(
      `with l as (select epoch, (owner is not null and expires_at > now()) as leased from ${this.#s}.leases where session_key = $1 for share),
            h as (select meta_version, generation, last_write,
                         (select count(*) from ${this.#s}.messages m where m.session_key = s.key) as rows,
                         (select coalesce(max(seq) + 1, 0) from ${this.#s}.messages m where m.session_key = s.key) as next
                    from ${this.#s}.sessions s where key = $1 for update)
       select (select row_to_json(h) from h) as head, (select row_to_json(l) from l) as lease`,
      [key],
    );
    const row = res.rows[0]!;
    const h = row.head;
    return {
      head: h ? { metaVersion: Number(h.meta_version), generation: Number(h.generation), lastWrite: (h.last_write as string | null) ?? null, rows: Number(h.rows), next: Number(h.next) } : null,
      lease: row.lease ? { epoch: Number(row.lease.epoch), leased: row.lease.leased } : null,
    };
  }

  #checkFence(key: string, turn: TurnState | null, lease: Lease | null): void {
    if (turn) {
      if (lease && lease.epoch !== turn.epoch) {
        turn.fence(`session "${key}" was taken over (fencing token ${String(lease.epoch)})`);
        throw turn.error();
      }
      return;
    }
    if (lease?.leased) {
      throw new SessionFencedError(
        key,
        null,
        `Session "${key}" is leased by a running worker turn (fencing token ${String(lease.epoch)}); this write carries no lease and was refused. The AgentLoop and the PostgresMessageBus of a worker must share one PostgresSessionStore instance (use createPostgresAgent).`,
      );
    }
  }

  /** Decides whether the save that failed with an unknown outcome committed; returns the tracking that holds now. */
  async #resolvePending(client: PoolClient, key: string, tracked: Tracking, head: Head | null): Promise<Tracking> {
    const pending = tracked.pending!;
    let committed = head !== null && head.lastWrite === pending.writeId;
    if (!committed && head !== null && pending.hashes.length > 0) {
      const res = await client.query<{ hash: string | null }>(
        `select hash from ${this.#s}.messages where session_key = $1 and seq >= $2 and seq < $3 order by seq`,
        [key, pending.firstSeq, pending.firstSeq + pending.hashes.length],
      );
      committed = res.rows.length === pending.hashes.length && res.rows.every((r, i) => r.hash === pending.hashes[i]);
    }
    return committed ? { ...pending.next, pending: null } : { ...tracked, pending: null };
  }

  #nextTracking(session: Session, newMeta: string, counts: { rowCount: number; metaVersion: number; generation: number }): Omit<Tracking, 'pending'> {
    return {
      stored: true,
      persistedCount: session.messages.length,
      rowCount: counts.rowCount,
      structureVersion: session.structureVersion,
      metaJson: newMeta,
      updatedAt: session.updatedAt,
      metaVersion: counts.metaVersion,
      generation: counts.generation,
    };
  }

  /** The rows of `messages` as statement parameters (first seq, texts, tags, hashes, the turn's token) and their hashes. */
  #rows(messages: readonly Message[], turn: TurnState | null, tag: string | null, firstSeq: number): { hashes: string[]; params: unknown[] } {
    const texts = messages.map((m) => JSON.stringify(m));
    const hashes = texts.map(contentHash);
    // A row keeps the tag of the turn that first wrote it, also when a rewrite writes it again.
    const tags = messages.map((m) => (this.#tags.has(m) ? this.#tags.get(m)! : tag));
    return { hashes, params: [firstSeq, texts, tags, hashes, turn?.epoch ?? null] };
  }

  /** Inserts rows for session `$1` from the five parameters starting at `$at` (see {@link #rows}), `guard` after the FROM. */
  #insertSql(at: number, guard: string): string {
    const p = (i: number): string => `$${at + i}`;
    return `insert into ${this.#s}.messages (session_key, seq, message, inbound_id, hash, epoch)
            select $1, ${p(0)}::bigint + t.ord - 1, t.message, t.tag, t.hash, ${p(4)}::bigint
              from unnest(${p(1)}::json[], ${p(2)}::text[], ${p(3)}::text[]) with ordinality as t(message, tag, hash, ord) ${guard}`;
  }

  /** Deletes the session and its messages; returns whether it existed. Refused like a save while a turn it is not part of holds the session. */
  async delete(key: string): Promise<boolean> {
    this.#checkKey(key);
    const turn = this.#turns.get(key) ?? null;
    return inTransaction(this.#pool, `deleting session "${key}"`, this.#idleMs, async (client) => {
      const { lease } = await this.#head(client, key);
      this.#checkFence(key, turn, lease);
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
   * Claims session `key` for the turn of inbound message `inboundId` (what `PostgresMessageBus`
   * does before it hands the message to the loop), in one transaction: takes the session's lease
   * for `owner` with the next fencing token — waiting up to `waitMs` while another owner's lease
   * is live — deletes the rows and the unsent outbound messages an earlier, unfinished attempt of
   * the same message wrote, and binds the sessions this store loads for `key` afterwards to the
   * turn. A message already processed is not run again (`processed`; the lease is released).
   * Throws `SessionFencedError` when the lease stayed taken, `PostgresConnectionError` when the
   * server is unreachable (nothing changed).
   */
  async beginAttempt(key: string, inboundId: string, options: { owner?: string; leaseMs?: number; waitMs?: number } = {}): Promise<SessionTurn> {
    this.#checkKey(key);
    const leaseMs = options.leaseMs ?? 30_000;
    const claim = await claimTurn(this.#pool, this.#s, this.#idleMs, { key, inboundId, owner: options.owner ?? this.#owner, leaseMs, waitMs: options.waitMs ?? leaseMs + 1000 });
    const turn = new TurnState({ key, inboundId, epoch: claim.epoch, rolledBack: claim.rolledBack, processed: claim.processed, leaseMs });
    if (!claim.processed) this.#turns.set(key, turn);
    return turn;
  }

  /** Ends `turn` in this store: sessions loaded for its key afterwards belong to no turn. */
  endAttempt(turn: SessionTurn): void {
    if (this.#turns.get(turn.key) === turn) this.#turns.delete(turn.key);
  }

  /**
   * Gives `turn`'s lease back if it still holds it (a newer turn's lease is left alone), so the
   * session's next turn need not wait for it to expire. Best effort: never rejects for an
   * unreachable database (the lease then expires).
   */
  async releaseLease(turn: SessionTurn): Promise<void> {
    await releaseTurn(this.#pool, this.#s, turn).catch((error: unknown) => (error instanceof PostgresConnectionError || isConnectionFailure(error) ? undefined : Promise.reject(error)));
  }

  /** The turn running for `key` in this process, if any. */
  turnOf(key: string): SessionTurn | undefined {
    return this.#turns.get(key);
  }
}
