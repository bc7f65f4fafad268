// The playground's result, drawn: a summary line, the kinds of change with their reasons, the
// before/after of every message with token bars, the legality table and the request.
import type { GovernTarget } from '@nanobot/governor';
import type { CompareRow, PlaygroundRun } from '../playground/run-playground.js';
import { fmt, h } from './dom.js';
import { MARK_LABEL } from './inspector-view.js';

/** Runs of unchanged messages longer than this fold into one row that opens. */
const FOLD_AT = 4;
/** The request shown inline is cut here (the copy button copies all of it). */
const REQUEST_SHOW_CHARS = 200_000;

/** One line with the figures that matter, and the counts in words. */
export function summaryView(run: PlaygroundRun): HTMLElement {
  const r = run.report;
  const fits = r.fits !== false;
  return h(
    'div',
    { class: 'pg-summary', 'data-testid': 'summary' },
    h(
      'div',
      { class: 'pg-figures' },
      figure('messages', `${fmt(r.messagesBefore)} → ${fmt(r.messagesAfter)}`),
      figure('tokens', `${fmt(r.tokensBefore ?? 0)} → ${fmt(r.tokensAfter ?? 0)}`),
      figure('budget', run.budget > 0 ? fmt(run.budget) : 'none'),
      h('div', { class: `pg-figure ${fits ? 'ok' : 'bad'}`, 'data-testid': 'fits' }, h('span', null, 'fits'), h('strong', null, fits ? 'yes' : 'no')),
    ),
    h('p', { class: 'pg-counts', 'data-testid': 'counts' }, run.snapshot.countsText, '. ', `${run.formatLabel} read as the governor's ${fmt(run.view.length)} messages, counted in ${run.tokenizer === 'claude' ? 'cl100k_base (the Claude estimate)' : run.tokenizer}; window ${fmt(run.contextWindowTokens)}, target ${run.target}.`),
    r.overflow ? h('p', { class: 'pg-warn' }, r.overflow.message) : null,
  );
}

function figure(label: string, value: string): HTMLElement {
  return h('div', { class: 'pg-figure' }, h('span', null, label), h('strong', null, value));
}

/** Each kind of change: how many, what, and why (the report's words). */
export function changesView(run: PlaygroundRun): HTMLElement {
  if (run.actions.length === 0) {
    return h('p', { class: 'pg-none', 'data-testid': 'changes' }, `Nothing changed: the history is already legal for ${run.target} and fits the budget, so the request is the history.`);
  }
  return h(
    'ul',
    { class: 'pg-changes', 'data-testid': 'changes' },
    run.actions.map((a) =>
      h('li', { 'data-action': a.action }, h('span', { class: `pg-tag ${a.action}` }, MARK_LABEL[a.action] ?? a.action), h('strong', null, `${fmt(a.count)} · ${a.text}`), a.step ? h('code', { class: 'pg-step' }, a.step) : null, h('div', { class: 'pg-why' }, a.why)),
    ),
  );
}

function bar(tokens: number, max: number, kind: 'before' | 'after'): HTMLElement {
  const pct = max > 0 ? Math.max(tokens > 0 ? 1 : 0, Math.round((tokens / max) * 100)) : 0;
  return h('div', { class: `pg-bar ${kind}`, title: `${fmt(tokens)} tokens` }, h('i', { style: `width:${pct}%` }), h('span', null, tokens > 0 ? fmt(tokens) : '–'));
}

function ruleView(c: CompareRow['changes'][number]): HTMLElement {
  return h('div', { class: 'pg-rule' }, h('span', { class: `pg-tag ${c.action}` }, MARK_LABEL[c.action] ?? c.action), c.step ? h('code', { class: 'pg-step' }, c.step) : null, ' ', c.why, c.detail ? h('span', { class: 'pg-detail' }, ` (${c.detail})`) : null);
}

function rowView(row: CompareRow, max: number, testid: string, withRules = true): HTMLElement {
  return h(
    'div',
    { class: `pg-cmp-row ${row.status}`, 'data-status': row.status, 'data-testid': testid, 'data-count': 1 },
    h('div', { class: 'pg-msg' }, h('span', { class: `pg-role ${row.role}` }, row.role), h('span', { class: 'pg-text' }, row.summary)),
    bar(row.before, max, 'before'),
    bar(row.after, max, 'after'),
    withRules && row.changes.length > 0 ? h('div', { class: 'pg-rules' }, row.changes.map(ruleView)) : null,
  );
}

/** Messages left out together for one reason: one row with the rule, the messages a click away. */
function removedGroupView(rows: CompareRow[], max: number): HTMLElement {
  const tokens = rows.reduce((n, r) => n + r.before, 0);
  const label = MARK_LABEL[rows[0].changes[0]?.action ?? 'removed'] ?? 'removed';
  return h(
    'div',
    { class: 'pg-cmp-group removed', 'data-status': 'removed', 'data-testid': 'changed-row', 'data-count': rows.length },
    h(
      'div',
      { class: 'pg-cmp-row removed' },
      h('div', { class: 'pg-msg' }, h('span', { class: 'pg-role' }, `${fmt(rows.length)} messages`), h('span', { class: 'pg-text' }, `${label}: ${rows[0].summary}`)),
      bar(tokens, Math.max(max, tokens), 'before'),
      bar(0, max, 'after'),
      h('div', { class: 'pg-rules' }, rows[0].changes.map(ruleView)),
    ),
    h('details', { class: 'pg-fold' }, h('summary', null, `Show the ${fmt(rows.length)} messages`), rows.map((r) => rowView(r, max, 'grouped-row', false))),
  );
}

/** The history and the request side by side, message by message, with token bars. */
export function compareView(run: PlaygroundRun): HTMLElement {
  const max = run.rows.reduce((m, r) => Math.max(m, r.before, r.after), 0);
  const out = h('div', { class: 'pg-compare', 'data-testid': 'compare' }, h('div', { class: 'pg-cmp-head' }, h('span', null, 'message'), h('span', null, 'your history'), h('span', null, 'the request')));
  // Runs of kept messages fold; runs of messages removed for the same reason group.
  let run_: CompareRow[] = [];
  const sameRun = (a: CompareRow, b: CompareRow): boolean => a.status === b.status && (a.status === 'kept' || (a.status === 'removed' && a.changes[0]?.why === b.changes[0]?.why));
  const flush = (): void => {
    const first = run_[0];
    if (first?.status === 'kept' && run_.length > FOLD_AT) {
      const tokens = run_.reduce((n, r) => n + r.after, 0);
      out.append(h('details', { class: 'pg-fold', 'data-testid': 'fold' }, h('summary', null, `${fmt(run_.length)} messages sent unchanged · ${fmt(tokens)} tokens`), run_.map((r) => rowView(r, max, 'kept-row'))));
    } else if (first?.status === 'removed' && run_.length > 2) out.append(removedGroupView(run_, max));
    else for (const r of run_) out.append(rowView(r, max, r.status === 'kept' ? 'kept-row' : 'changed-row'));
    run_ = [];
  };
  for (const row of run.rows) {
    if (run_.length > 0 && !sameRun(run_[0], row)) flush();
    if (row.status === 'kept' || row.status === 'removed') run_.push(row);
    else {
      flush();
      out.append(rowView(row, max, 'changed-row'));
    }
  }
  flush();
  return out;
}

function verdictCell(violations: PlaygroundRun['legality'][number]['before'], testid: string): HTMLElement {
  if (violations.length === 0) return h('td', { class: 'pg-legal', 'data-testid': testid, 'data-verdict': 'legal' }, '✓ legal');
  const rules = [...new Set(violations.map((v) => v.rule))];
  return h(
    'td',
    { class: 'pg-illegal', 'data-testid': testid, 'data-verdict': 'illegal' },
    h(
      'details',
      null,
      h('summary', null, `✗ ${fmt(violations.length)} problem${violations.length === 1 ? '' : 's'}: ${rules.slice(0, 3).join(', ')}${rules.length > 3 ? ', …' : ''}`),
      h('ul', null, violations.slice(0, 50).map((v) => h('li', null, h('code', null, v.rule), ` at message ${v.index}: ${v.message}`))),
      violations.length > 50 ? h('p', null, `… and ${fmt(violations.length - 50)} more.`) : null,
    ),
  );
}

/** checkLegality for every provider target, on the history and on the request. */
export function legalityView(run: PlaygroundRun, labels: Record<GovernTarget, string>): HTMLElement {
  return h(
    'div',
    { class: 'pg-table-wrap' },
    h(
      'table',
      { class: 'pg-legality', 'data-testid': 'legality' },
      h('thead', null, h('tr', null, h('th', null, 'target'), h('th', null, 'your history'), h('th', null, 'the request'))),
      h(
        'tbody',
        null,
        run.legality.map((v) =>
          h('tr', { 'data-target': v.target, class: v.target === run.target ? 'chosen' : '' }, h('th', null, h('code', null, v.target), h('span', { class: 'pg-target-label' }, labels[v.target]), v.target === run.target ? h('span', { class: 'pg-chosen' }, 'chosen') : null), verdictCell(v.before, 'verdict-before'), verdictCell(v.after, 'verdict-after')),
        ),
      ),
    ),
  );
}

/** The request as JSON, with the call that made it. */
export function requestView(run: PlaygroundRun): HTMLElement {
  const json = JSON.stringify(run.request.body, null, 2);
  const shown = json.length > REQUEST_SHOW_CHARS ? `${json.slice(0, REQUEST_SHOW_CHARS)}\n… (${fmt(json.length - REQUEST_SHOW_CHARS)} more characters: use Copy)` : json;
  const copy = h('button', { class: 'pg-btn', type: 'button', onclick: () => void navigator.clipboard?.writeText(json).then(() => (copy.textContent = 'Copied'), () => (copy.textContent = 'Copy failed')) }, 'Copy');
  return h('div', { class: 'pg-request', 'data-testid': 'request' }, h('div', { class: 'pg-row' }, h('span', { class: 'pg-via' }, run.request.via), copy), h('pre', null, shown));
}
