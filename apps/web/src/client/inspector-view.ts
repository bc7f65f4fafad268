import type { ActionSummary, BudgetView, InspectorSnapshot, Mark, MessageSummary, TimelineRow } from '../shared/protocol.js';
import { fmt, h } from './dom.js';

const SEGMENTS: { key: 'system' | 'tools' | 'history' | 'current' | 'headroom'; label: string }[] = [
  { key: 'system', label: 'System' },
  { key: 'tools', label: 'Tools' },
  { key: 'history', label: 'History' },
  { key: 'current', label: 'Current turn' },
  { key: 'headroom', label: 'Headroom' },
];

/** Short labels of the governance marks and removal reasons (the inspector's and the playground's). */
export const MARK_LABEL: Record<string, string> = {
  backfilled: 'backfilled',
  offloaded: 'offloaded',
  truncated: 'truncated',
  'empty-marker': 'empty result',
  'offload-failed': 'offload failed',
  compacted: 'compacted',
  recompacted: 'compacted',
  renamed: 'id renamed',
  moved: 'moved',
  'stripped-calls': 'calls stripped',
  rewritten: 'rewritten',
  merged: 'merged',
  snipped: 'snipped',
  stripped: 'stripped',
  orphan: 'orphan dropped',
  dropped: 'dropped',
};

/** The budget as one stacked bar (system, tools, history, current turn, headroom) with a legend. */
export function budgetBar(budget: BudgetView): HTMLElement {
  const scale = Math.max(budget.limit, budget.used, 1);
  const over = budget.limit > 0 && budget.used > budget.limit;
  return h(
    'div',
    { class: 'budget', 'data-testid': 'budget' },
    h(
      'div',
      { class: 'budget-head' },
      h('span', { class: 'budget-title' }, 'Token budget'),
      h(
        'span',
        { class: `budget-total${over ? ' over' : ''}` },
        budget.limit > 0 ? `${fmt(budget.used)} / ${fmt(budget.limit)} tokens` : `${fmt(budget.used)} tokens · no window set`,
      ),
    ),
    h(
      'div',
      { class: 'bar', role: 'img', 'aria-label': 'token budget' },
      SEGMENTS.filter((s) => s.key !== 'headroom' || budget.limit > 0).map((s) => {
        const value = budget[s.key] as number;
        return h('div', {
          class: `seg seg-${s.key}`,
          'data-segment': s.key,
          'data-tokens': value,
          style: `width:${((value / scale) * 100).toFixed(2)}%`,
        });
      }),
    ),
    h(
      'div',
      { class: 'legend' },
      SEGMENTS.map((s) => h('span', { class: 'legend-item' }, h('i', { class: `dot seg-${s.key}` }), `${s.label} `, h('b', null, fmt(budget[s.key])))),
      budget.overhead > 0 ? h('span', { class: 'legend-item', 'data-testid': 'overhead' }, 'Reply priming ', h('b', null, fmt(budget.overhead))) : null,
    ),
    h(
      'div',
      { class: 'budget-counted' },
      h(
        'span',
        { 'data-testid': 'tokenizer' },
        `Counted with ${budget.tokenizer}` +
          (budget.tokensCalibrated !== undefined && budget.inputBudget !== undefined && budget.inputBudget !== budget.limit
            ? `; the usage calibration expects ${fmt(budget.tokensCalibrated)} of ${fmt(budget.inputBudget)} billed input tokens.`
            : '.'),
      ),
      // Shown only when the request differs from the transcript, in the same units as the bar.
      budget.transcriptTokens !== budget.used
        ? [' ', h('span', { 'data-testid': 'transcript-vs-sent' }, `As given to the governor the transcript is ${fmt(budget.transcriptTokens)} tokens; it sent ${fmt(budget.used)}.`)]
        : null,
    ),
    budget.toolsWarning ? h('div', { class: 'budget-note warn', 'data-testid': 'tools-warning' }, budget.toolsWarning) : null,
  );
}

/** What the governor did to this request: one row per kind of change, its reason in view. */
function actionList(snapshot: InspectorSnapshot): HTMLElement {
  const { actions } = snapshot;
  if (actions.length === 0) {
    return h('div', { class: 'actions', 'data-testid': 'actions' }, h('p', { class: 'muted' }, 'No governance needed: the transcript was sent as stored.'));
  }
  return h(
    'div',
    { class: 'actions', 'data-testid': 'actions' },
    h('h3', { class: 'actions-title' }, 'What the governor changed'),
    h(
      'ul',
      { class: 'action-list' },
      actions.map((a: ActionSummary) =>
        h(
          'li',
          { class: `action mark-${a.action}`, 'data-action': a.action },
          h('span', { class: `chip mark-${a.action}`, 'aria-label': `${a.count} ${a.text}` }, h('b', null, fmt(a.count)), ` ${MARK_LABEL[a.action] ?? a.action}`),
          h('span', { class: 'why', 'data-testid': 'why' }, a.why),
        ),
      ),
    ),
  );
}

function markBadge(mark: Mark): HTMLElement {
  const badge = h('span', { class: `mark mark-${mark.action}`, 'data-mark': mark.action }, MARK_LABEL[mark.action] ?? mark.action);
  if (!mark.artifactUrl) return badge;
  return h('span', { class: 'mark-wrap' }, badge, h('a', { class: 'artifact-link', href: mark.artifactUrl, target: '_blank', rel: 'noopener', 'data-testid': 'artifact-link' }, 'open file ↗'));
}

function removedRow(row: Extract<TimelineRow, { kind: 'removed' }>): HTMLElement {
  const label = `${row.messages.length} message${row.messages.length === 1 ? '' : 's'} ${MARK_LABEL[row.reason] ?? row.reason}`;
  return h(
    'details',
    { class: `tl-removed mark-${row.reason}`, 'data-removed': row.reason, 'data-count': row.messages.length },
    h(
      'summary',
      null,
      h('span', { class: 'tl-removed-head' }, h('span', { class: `mark mark-${row.reason}` }, MARK_LABEL[row.reason] ?? row.reason), h('span', { class: 'tl-removed-label' }, label), h('span', { class: 'tokens' }, `${fmt(row.tokens)} t`)),
      h('span', { class: 'why', 'data-testid': 'why' }, row.why),
      h('span', { class: 'tl-removed-more' }, 'Show them'),
    ),
    h('ol', { class: 'tl-removed-list' }, row.messages.map((m: MessageSummary) => h('li', null, h('span', { class: `role role-${m.role}` }, m.role), h('span', { class: 'summary' }, m.summary)))),
  );
}

function messageRow(row: Extract<TimelineRow, { kind: 'message' }>): HTMLElement {
  return h(
    'div',
    { class: `tl-row zone-${row.zone}${row.marks.length > 0 ? ' marked' : ''}`, 'data-index': row.index, 'data-role': row.role, 'data-marks': row.marks.map((m) => m.action).join(' ') },
    h(
      'div',
      { class: 'tl-line' },
      h('span', { class: 'tl-index' }, String(row.index)),
      h('span', { class: `role role-${row.role}` }, row.role === 'tool' && row.toolName ? `tool · ${row.toolName}` : row.role),
      h('span', { class: 'summary' }, row.summary),
      row.marks.map(markBadge),
      h('span', { class: 'tokens' }, `${fmt(row.tokens)} t`),
    ),
    // Why the governor changed it, in view (not in a tooltip).
    row.marks.map((m) => h('p', { class: 'why', 'data-testid': 'why', 'data-mark': m.action }, m.why, m.detail ? h('span', { class: 'why-detail' }, ` (${m.detail})`) : null)),
  );
}

const COLLAPSE_AFTER = 8;
const KEEP_HEAD = 2;
const KEEP_TAIL = 2;

/** Long runs of history sent unchanged fold into one expandable row, so the actions stand out. */
function foldUnchanged(rows: HTMLElement[], run: Extract<TimelineRow, { kind: 'message' }>[]): void {
  if (run.length <= COLLAPSE_AFTER) {
    rows.push(...run.map(messageRow));
    return;
  }
  const hidden = run.slice(KEEP_HEAD, run.length - KEEP_TAIL);
  const tokens = hidden.reduce((n, r) => n + r.tokens, 0);
  rows.push(...run.slice(0, KEEP_HEAD).map(messageRow));
  rows.push(
    h(
      'details',
      { class: 'tl-folded', 'data-folded': hidden.length },
      h('summary', null, h('span', { class: 'tl-folded-label' }, `${hidden.length} more messages sent unchanged`), h('span', { class: 'tokens' }, `${fmt(tokens)} t`)),
      hidden.map(messageRow),
    ),
  );
  rows.push(...run.slice(run.length - KEEP_TAIL).map(messageRow));
}

/** The request timeline: sent messages in order, governance marks, and what was removed where. */
export function timelineView(snapshot: InspectorSnapshot): HTMLElement {
  const rows: HTMLElement[] = [];
  let zone = '';
  let run: Extract<TimelineRow, { kind: 'message' }>[] = [];
  const flush = (): void => {
    foldUnchanged(rows, run);
    run = [];
  };
  for (const row of snapshot.timeline) {
    if (row.kind === 'message' && row.zone !== zone) {
      flush();
      zone = row.zone;
      rows.push(h('div', { class: `tl-zone zone-${zone}` }, zone === 'current' ? 'current turn' : zone));
    }
    if (row.kind === 'message' && row.zone === 'history' && row.marks.length === 0) {
      run.push(row);
      continue;
    }
    flush();
    rows.push(row.kind === 'removed' ? removedRow(row) : messageRow(row));
  }
  flush();
  return h('div', { class: 'timeline', 'data-testid': 'timeline' }, rows);
}

/** The system prompt, section by section, each collapsible with its token count. */
export function sectionsView(snapshot: InspectorSnapshot): HTMLElement {
  return h(
    'div',
    { class: 'sections', 'data-testid': 'sections' },
    snapshot.sections.map((s, i) =>
      h('details', { class: 'section', 'data-section': s.name, open: i === 0 }, h('summary', null, h('span', { class: 'section-name' }, s.name.replace(/_/g, ' ')), h('span', { class: 'tokens' }, `${fmt(s.tokens)} t`)), h('pre', null, s.text)),
    ),
    h('div', { class: 'muted small' }, `Tools sent: ${snapshot.toolNames.join(', ') || 'none'}`),
  );
}

/** Header strip: which request of the turn is shown, with a picker over the turn's requests. */
export function iterationPicker(snapshots: InspectorSnapshot[], selected: number, onPick: (i: number) => void): HTMLElement {
  return h(
    'div',
    { class: 'iterations' },
    h('span', { class: 'muted' }, 'Request'),
    snapshots.map((s, i) =>
      h('button', { class: `iter${i === selected ? ' active' : ''}`, 'data-iteration': s.iteration + 1, onclick: () => onPick(i), 'aria-label': `Request ${s.iteration + 1}: ${s.countsText}` }, String(s.iteration + 1)),
    ),
  );
}

/** The whole inspector for one snapshot (or an explanation when there is none yet). */
export function inspectorView(snapshots: InspectorSnapshot[], selected: number, tab: 'request' | 'prompt', handlers: { pick: (i: number) => void; tab: (t: 'request' | 'prompt') => void }): HTMLElement {
  const snapshot = snapshots[selected];
  if (!snapshot) {
    return h(
      'div',
      { class: 'inspector-empty' },
      h('h3', null, 'Context inspector'),
      h('p', null, 'Send a message: every request the agent makes shows up here — the system prompt by section, the exact message list sent, what the governor stripped, backfilled, offloaded, compacted or snipped, and the token budget.'),
    );
  }
  return h(
    'div',
    { class: 'inspector-body', 'data-testid': 'inspector', 'data-iteration': snapshot.iteration + 1 },
    iterationPicker(snapshots, selected, handlers.pick),
    budgetBar(snapshot.budget),
    actionList(snapshot),
    h(
      'div',
      { class: 'tabs' },
      h('button', { class: `tab${tab === 'request' ? ' active' : ''}`, onclick: () => handlers.tab('request'), 'data-tab': 'request' }, `Request · ${snapshot.counts.request} messages`),
      h('button', { class: `tab${tab === 'prompt' ? ' active' : ''}`, onclick: () => handlers.tab('prompt'), 'data-tab': 'prompt' }, `System prompt · ${snapshot.sections.length} sections`),
    ),
    tab === 'request' ? h('p', { class: 'counts', 'data-testid': 'counts' }, `${snapshot.countsText}.`) : null,
    tab === 'request' ? timelineView(snapshot) : sectionsView(snapshot),
  );
}
