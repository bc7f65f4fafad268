import type { Pool } from 'pg';

/**
 * Installs triggers that log every write of a turn — a session row inserted or deleted, an
 * outbound row inserted or deleted, an inbound message marked processed — with the writer's
 * `application_name` (each test worker connects under its own name), in commit-independent
 * statement order. What {@link turnOverlaps} reads.
 */
export async function installTurnAudit(pool: Pool): Promise<void> {
  await pool.query(`
    create table public.turn_audit (id bigserial primary key, writer text not null, tbl text not null, op text not null, session_key text, inbound_id text);
    create function public.turn_audit_row() returns trigger language plpgsql as $$
    declare
      r record;
    begin
      if tg_op = 'DELETE' then r := old; else r := new; end if;
      if tg_table_name = 'inbound' then
        insert into public.turn_audit (writer, tbl, op, session_key, inbound_id) values (current_setting('application_name'), tg_table_name, tg_op, r.session_key, r.id);
      else
        insert into public.turn_audit (writer, tbl, op, session_key, inbound_id) values (current_setting('application_name'), tg_table_name, tg_op, r.session_key, r.inbound_id);
      end if;
      return null;
    end $$;
    create trigger turn_audit after insert or delete on nanobot.messages for each row execute function public.turn_audit_row();
    create trigger turn_audit after insert or delete on nanobot.outbound for each row execute function public.turn_audit_row();
    create trigger turn_audit after update of processed_at on nanobot.inbound for each row when (new.processed_at is not null and old.processed_at is null)
      execute function public.turn_audit_row();
  `);
}

/**
 * Turns that overlapped on two workers: for each worker and inbound message, the span from its
 * first to its last write for that message's session; any write of another worker to the same
 * session inside that span is an overlap (a worker that was taken over wrote again). Only writers
 * whose name starts with `prefix` count (the test's workers). Empty: no turn overlapped.
 */
export async function turnOverlaps(pool: Pool, prefix: string): Promise<string[]> {
  const res = await pool.query<{ id: string; writer: string; tbl: string; op: string; session_key: string | null; inbound_id: string | null }>(
    `select id, writer, tbl, op, session_key, inbound_id from public.turn_audit where writer like $1 || '%' and session_key is not null order by id`,
    [prefix],
  );
  const rows = res.rows.map((r) => ({ ...r, id: Number(r.id) }));
  const spans = new Map<string, { writer: string; session: string; inbound: string; first: number; last: number }>();
  for (const r of rows) {
    if (r.inbound_id === null) continue;
    const key = `${r.writer}\u0000${r.inbound_id}`;
    const span = spans.get(key);
    if (span) span.last = r.id;
    else spans.set(key, { writer: r.writer, session: r.session_key!, inbound: r.inbound_id, first: r.id, last: r.id });
  }
  const out: string[] = [];
  for (const span of spans.values()) {
    const inside = rows.filter((r) => r.session_key === span.session && r.writer !== span.writer && r.id > span.first && r.id < span.last);
    for (const r of inside) out.push(`${span.writer}'s turn of ${span.inbound} (audit ${span.first}..${span.last}) overlaps ${r.writer}'s ${r.op} on ${r.tbl} (audit ${r.id}, inbound ${String(r.inbound_id)})`);
  }
  return out;
}
