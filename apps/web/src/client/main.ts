import type { ChatItem, ErrorBody, InspectorSnapshot, ServerInfo, SessionListItem, StreamEvent, TurnBill } from '../shared/protocol.js';
import { fmt, h } from './dom.js';
import { inspectorView } from './inspector-view.js';
import { renderMarkdown } from './render-markdown.js';
import './styles.css';

/** A chat item as the page holds it: streamed assistant text counts its deltas. */
type LiveItem = ChatItem & { streaming?: boolean; deltas?: number };

interface State {
  info: ServerInfo | null;
  sessions: SessionListItem[];
  key: string | null;
  items: LiveItem[];
  running: boolean;
  snapshots: InspectorSnapshot[];
  /** Index into `snapshots`; null follows the newest. */
  selected: number | null;
  tab: 'request' | 'prompt';
  /** Narrow windows show one panel at a time: the chat or the inspector. */
  view: 'chat' | 'inspector';
  /** Whether the status figure's details are open. */
  statusOpen: boolean;
  error: string | null;
  /** Tokens and cost of the session's last turn. */
  bill: TurnBill | null;
}

const state: State = { info: null, sessions: [], key: null, items: [], running: false, snapshots: [], selected: null, tab: 'request', view: 'chat', statusOpen: false, error: null, bill: null };
let source: EventSource | null = null;

// A message goes to the session the page is switching to, once that session's stream has
// delivered its snapshot: sent earlier, its turn could run (and finish) before the server knows
// this page is listening, and its events be missed. "+ New chat" first has to create the session
// (a request that is slow on a busy machine), so a message typed meanwhile must wait for it too,
// not go to the chat that is about to be closed. Waiters are kept in one list that only the
// settled page releases, so switching again while they wait never strands them.
/** Bumped when a switch starts: a message typed before a later switch is not moved to it. */
let navigation = 0;
/** Switches still creating their session (it is not known yet which key to open). */
let creating = 0;
/** Whether the open session's stream has delivered its snapshot. */
let streamOpen = false;
const readyWaiters: (() => void)[] = [];

function settled(): boolean {
  return creating === 0 && streamOpen;
}

function releaseIfSettled(): void {
  if (settled()) for (const wake of readyWaiters.splice(0)) wake();
}

/** Resolves once no switch is in progress and the open session's stream is live. */
function whenSettled(): Promise<void> {
  return settled() ? Promise.resolve() : new Promise((resolve) => readyWaiters.push(resolve));
}

async function api<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const res = await fetch(path, {
    method: init?.method ?? 'GET',
    ...(init?.body !== undefined ? { body: JSON.stringify(init.body), headers: { 'Content-Type': 'application/json' } } : {}),
  });
  const data = (await res.json().catch(() => null)) as T | ErrorBody | null;
  if (!res.ok) throw new Error((data as ErrorBody | null)?.error?.message ?? `HTTP ${res.status}`);
  return data as T;
}

// ---- layout -------------------------------------------------------------------------------

const sessionList = h('nav', { class: 'session-list', 'data-testid': 'sessions' });
const chatLog = h('div', { class: 'chat-log', 'data-testid': 'chat' });
const LONG_PLACEHOLDER = 'Ask something… e.g. “What is in the workspace?” or “Check the logs”';
const SHORT_PLACEHOLDER = 'Ask something…';
const input = h('textarea', { class: 'composer-input', rows: 2, placeholder: LONG_PLACEHOLDER, 'data-testid': 'input' });
const sendButton = h('button', { class: 'btn primary', type: 'submit', 'data-testid': 'send' }, 'Send');
const stopButton = h('button', { class: 'btn', type: 'button', 'data-testid': 'stop', onclick: () => void stop() }, 'Stop');
// The status: one compact figure (or what is going on), its details one click away.
const statusButton = h('button', { class: 'status-line', type: 'button', 'data-testid': 'status', 'aria-expanded': 'false', onclick: () => toggleStatus() });
const statusDetails = h('div', { class: 'status-details', 'data-testid': 'status-details', hidden: true });
const inspector = h('section', { class: 'inspector', 'data-testid': 'inspector-panel', 'aria-label': 'Context inspector' });
const WINDOW_SOURCES: Record<NonNullable<ServerInfo['windowSource']>, string> = {
  set: 'set by --context-window or NANOBOT_CONTEXT_WINDOW',
  provider: "read from the provider's models endpoint",
  cache: "the provider's models endpoint, cached",
  table: 'the built-in model table',
  default: 'the default (nothing knew this model)',
};
const modelBadge = h('span', { class: 'badge' });
const chatTitle = h('h2', { class: 'chat-title', 'data-testid': 'title' }, 'nanobot');
const viewChat = h('button', { class: 'view-tab', type: 'button', 'data-testid': 'view-chat', onclick: () => setView('chat') }, 'Chat');
const viewInspector = h('button', { class: 'view-tab', type: 'button', 'data-testid': 'view-inspector', onclick: () => setView('inspector') }, 'Inspector');

const composer = h(
  'form',
  {
    class: 'composer',
    onsubmit: (e: Event) => {
      e.preventDefault();
      void send();
    },
  },
  input,
  h('div', { class: 'composer-actions' }, stopButton, sendButton),
);
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    void send();
  }
});

// A narrow composer gets the short placeholder, so it is never cut off.
const narrow = window.matchMedia('(max-width: 700px)');
const fitPlaceholder = (): void => {
  input.placeholder = narrow.matches ? SHORT_PLACEHOLDER : LONG_PLACEHOLDER;
};
narrow.addEventListener('change', fitPlaceholder);
fitPlaceholder();

const shell = h(
  'div',
  { class: 'shell', 'data-view': 'chat' },
  h(
    'aside',
    { class: 'sidebar' },
    h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, 'nb'), h('span', { class: 'brand-name' }, 'nanobot'), h('span', { class: 'brand-sub' }, 'context inspector')),
    h(
      'div',
      { class: 'sidebar-actions' },
      h('button', { class: 'btn block', 'data-testid': 'new-session', onclick: () => void newSession() }, h('span', { class: 'long-label' }, '+ New chat'), h('span', { class: 'short-label' }, '+ New')),
      h(
        'button',
        { class: 'btn block ghost', 'data-testid': 'prepared-session', onclick: () => void preparedSession() },
        h('span', { class: 'long-label' }, '+ Prepared long session'),
        h('span', { class: 'short-label' }, '+ Long session'),
      ),
    ),
    // The governor alone, computed in the browser (playground.html links back here).
    h(
      'a',
      { class: 'btn block ghost playground-link', href: '/playground.html', 'data-testid': 'playground-link' },
      h('span', { class: 'long-label' }, 'Governor playground →'),
      h('span', { class: 'short-label' }, 'Playground'),
    ),
    h('p', { class: 'sidebar-hint' }, 'The prepared session is longer than the window and has a tool call without a result: watch the governor snip and backfill.'),
    h('div', { class: 'sidebar-label' }, 'Sessions'),
    sessionList,
    h('div', { class: 'sidebar-foot' }, modelBadge),
  ),
  h('nav', { class: 'view-switch', 'aria-label': 'Show' }, viewChat, viewInspector),
  h('main', { class: 'chat' }, h('header', { class: 'chat-head' }, chatTitle, statusButton, statusDetails), chatLog, composer),
  inspector,
);
document.getElementById('app')!.append(shell);

function setView(view: 'chat' | 'inspector'): void {
  state.view = view;
  shell.dataset.view = view;
  renderViewSwitch();
}

function toggleStatus(): void {
  state.statusOpen = !state.statusOpen;
  renderStatus();
}

function renderViewSwitch(): void {
  viewChat.classList.toggle('active', state.view === 'chat');
  viewInspector.classList.toggle('active', state.view === 'inspector');
  viewChat.setAttribute('aria-pressed', String(state.view === 'chat'));
  viewInspector.setAttribute('aria-pressed', String(state.view === 'inspector'));
  const last = state.snapshots[state.snapshots.length - 1];
  const changes = last ? last.actions.reduce((n, a) => n + a.count, 0) : 0;
  viewInspector.replaceChildren('Inspector', ...(changes > 0 ? [h('span', { class: 'view-badge', 'data-testid': 'view-badge', 'aria-label': `${changes} changes` }, String(changes))] : []));
}

// ---- rendering ----------------------------------------------------------------------------

function itemView(item: LiveItem): HTMLElement {
  switch (item.kind) {
    case 'user':
      return h('div', { class: 'msg user', 'data-kind': 'user' }, h('div', { class: 'bubble' }, item.text));
    case 'assistant': {
      const body = h('div', { class: 'bubble md' }, renderMarkdown(item.text));
      return h('div', { class: `msg assistant${item.streaming ? ' streaming' : ''}${item.interrupted ? ' interrupted' : ''}`, 'data-kind': 'assistant', 'data-deltas': item.deltas ?? 0 }, body);
    }
    case 'tool':
      return h(
        'div',
        { class: `tool tool-${item.status}`, 'data-kind': 'tool', 'data-tool': item.name, 'data-status': item.status },
        h('div', { class: 'tool-head' }, h('span', { class: 'tool-icon' }, item.status === 'running' ? '⟳' : item.status === 'ok' ? '✓' : '!'), h('span', { class: 'tool-name' }, item.name), h('code', { class: 'tool-args' }, item.args)),
        item.detail ? h('div', { class: 'tool-detail' }, item.detail) : null,
      );
    case 'notice':
      return h('div', { class: 'notice', 'data-kind': 'notice' }, item.text);
  }
}

function nearBottom(): boolean {
  return chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 80;
}

function renderChat(): void {
  const stick = nearBottom();
  chatLog.replaceChildren(
    ...(state.items.length === 0 ? [h('div', { class: 'chat-empty' }, h('p', null, 'Start chatting. The agent runs real tools in its workspace; the inspector shows every request it sends.'))] : []),
    ...state.items.map(itemView),
  );
  if (stick) chatLog.scrollTop = chatLog.scrollHeight;
}

function renderStreamingTail(): void {
  // Streaming touches only the last bubble, not the whole log.
  const item = state.items[state.items.length - 1];
  const el = chatLog.lastElementChild as HTMLElement | null;
  if (!item || item.kind !== 'assistant' || !el || el.dataset.kind !== 'assistant') return renderChat();
  const stick = nearBottom();
  el.replaceWith(itemView(item));
  if (stick) chatLog.scrollTop = chatLog.scrollHeight;
}

function renderSessions(): void {
  const active = (): void => {
    // On a phone the sessions are a strip that scrolls sideways: keep the open one in view.
    sessionList.querySelector<HTMLElement>('.session.active')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  };
  requestAnimationFrame(active);
  sessionList.replaceChildren(
    ...state.sessions.map((s) =>
      h(
        'button',
        { class: `session${s.key === state.key ? ' active' : ''}`, 'data-key': s.key, onclick: () => open(s.key) },
        h('span', { class: 'session-title' }, s.title),
        h('span', { class: 'session-meta' }, `${s.messageCount} msgs${s.running ? ' · running' : ''}`),
      ),
    ),
  );
}

function renderInspector(): void {
  const selected = state.selected ?? state.snapshots.length - 1;
  inspector.replaceChildren(
    inspectorView(state.snapshots, selected, state.tab, {
      pick: (i) => {
        state.selected = i === state.snapshots.length - 1 ? null : i;
        renderInspector();
      },
      tab: (t) => {
        state.tab = t;
        renderInspector();
      },
    }),
  );
}

/** The one figure the status shows when idle: what the last request cost (billed when known). */
function compactFigure(last: InspectorSnapshot | undefined): string {
  const billed = state.bill?.lastRequest?.actual;
  const tokens = billed ?? last?.budget.used;
  if (tokens === undefined) return '';
  const cost = state.bill?.cost !== undefined ? ` · $${state.bill.cost >= 0.1 ? state.bill.cost.toFixed(2) : state.bill.cost.toFixed(4)}` : '';
  return `${fmt(tokens)} tokens${cost}`;
}

/** The details behind the compact figure, one plain sentence per line. */
function statusDetailLines(last: InspectorSnapshot | undefined): string[] {
  const lines: string[] = [];
  const request = state.bill?.lastRequest;
  if (request) {
    const calibrated = request.calibrated !== request.estimated ? ` (${fmt(request.calibrated)} after the usage calibration)` : '';
    lines.push(`Last request: ${fmt(request.actual)} input tokens billed by the provider; the governor estimated ${fmt(request.estimated)}${calibrated}.`);
  } else if (last) {
    lines.push(`Last request: ${fmt(last.budget.used)} tokens, as the governor estimated them (${last.budget.tokenizer}).`);
  }
  if (last && last.budget.limit > 0) lines.push(`Budget: ${fmt(last.budget.used)} of ${fmt(last.budget.limit)} tokens used (${Math.round((last.budget.used / last.budget.limit) * 100)}%).`);
  if (state.bill) {
    const cached = state.bill.cachedTokens ? ` (${fmt(state.bill.cachedTokens)} cached)` : '';
    const cost = state.bill.cost !== undefined ? `, $${state.bill.cost >= 0.1 ? state.bill.cost.toFixed(2) : state.bill.cost.toFixed(4)}` : '';
    lines.push(`Last turn: ${fmt(state.bill.inputTokens)} tokens in${cached}, ${fmt(state.bill.outputTokens)} out${cost}.`);
  }
  return lines;
}

function renderStatus(): void {
  const current = state.sessions.find((s) => s.key === state.key);
  chatTitle.textContent = current?.title ?? 'nanobot';
  chatTitle.title = chatTitle.textContent;
  const last = state.snapshots[state.snapshots.length - 1];
  const figure = compactFigure(last);
  const details = state.error ? [state.error] : statusDetailLines(last);
  statusButton.textContent = state.error ? 'Error — details' : state.running ? 'Working…' : figure;
  statusButton.className = `status-line${state.error ? ' error' : state.running ? ' busy' : ''}`;
  statusButton.dataset.state = state.error ? 'error' : state.running ? 'busy' : figure ? 'done' : 'idle';
  statusButton.hidden = !state.error && !state.running && figure === '';
  statusButton.disabled = details.length === 0;
  // An error is always shown in full; the figures open on demand.
  const open = (state.statusOpen || state.error !== null) && details.length > 0;
  statusButton.setAttribute('aria-expanded', String(open));
  statusDetails.hidden = !open;
  statusDetails.className = `status-details${state.error ? ' error' : ''}`;
  statusDetails.replaceChildren(...details.map((line) => h('p', null, line)));
  stopButton.disabled = !state.running;
  sendButton.disabled = state.key === null;
  if (state.info) {
    modelBadge.textContent = `${state.info.offline ? 'offline demo model' : `${state.info.model} via ${state.info.provider}`} · ${fmt(state.info.contextWindowTokens)} window`;
    // Where the window came from (the provider's models endpoint, the model table, a flag).
    if (state.info.windowSource) modelBadge.title = `window: ${WINDOW_SOURCES[state.info.windowSource]}`;
    modelBadge.className = `badge${state.info.offline ? ' offline' : ''}`;
  }
  renderViewSwitch();
}

// ---- events -------------------------------------------------------------------------------

function finishStreaming(): void {
  const last = state.items[state.items.length - 1];
  if (last?.kind === 'assistant' && last.streaming) last.streaming = false;
}

/**
 * The assistant bubble of the current turn (after its user message) that shows `finalContent`
 * already: the one still streaming, or one whose text the final content starts with.
 */
function streamedReplyOfTurn(finalContent: string | null | undefined): Extract<LiveItem, { kind: 'assistant' }> | null {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item.kind === 'user') break;
    if (item.kind !== 'assistant') continue;
    if (item.streaming || (finalContent && finalContent.startsWith(item.text.trimEnd()))) return item;
    break;
  }
  return null;
}

function onEvent(event: StreamEvent): void {
  switch (event.type) {
    case 'snapshot':
      streamOpen = true;
      state.items = event.session.items;
      state.running = event.session.running;
      state.snapshots = event.session.inspector ? [event.session.inspector] : [];
      state.bill = event.session.bill;
      state.selected = null;
      renderChat();
      renderInspector();
      break;
    case 'user':
      finishStreaming();
      state.items.push({ kind: 'user', text: event.text });
      state.running = true;
      renderChat();
      break;
    case 'turn_start':
      state.running = true;
      state.snapshots = [];
      state.selected = null;
      break;
    case 'delta': {
      const last = state.items[state.items.length - 1];
      if (last?.kind === 'assistant' && last.streaming) {
        last.text += event.text;
        last.deltas = (last.deltas ?? 0) + 1;
        renderStreamingTail();
      } else {
        state.items.push({ kind: 'assistant', text: event.text, streaming: true, deltas: 1 });
        renderChat();
      }
      break;
    }
    case 'assistant':
      finishStreaming();
      state.items.push({ kind: 'assistant', text: event.text });
      renderChat();
      break;
    case 'tool_start':
      finishStreaming();
      state.items.push({ kind: 'tool', callId: event.callId, name: event.name, args: event.args, status: 'running', detail: '' });
      renderChat();
      break;
    case 'tool_end': {
      const item = state.items.find((i) => i.kind === 'tool' && i.callId === event.callId);
      if (item && item.kind === 'tool') {
        item.status = event.status;
        item.detail = event.detail;
      }
      renderChat();
      break;
    }
    case 'inspector':
      state.snapshots.push(event.snapshot);
      renderInspector();
      break;
    case 'notice':
      finishStreaming();
      state.items.push({ kind: 'notice', text: event.text });
      renderChat();
      break;
    case 'turn_end': {
      // The reply streamed into a bubble of this turn; a notice (the /stop answer) may have come
      // after it, so look back to the turn's start, not just at the last item.
      const shown = streamedReplyOfTurn(event.finalContent);
      // A failed turn's final content is its error, which the notice below says once.
      const failed = event.stopReason !== 'completed' && event.stopReason !== 'aborted';
      const isError = failed && event.error !== null && event.finalContent !== null && event.finalContent.trim().endsWith(event.error.trim());
      if (shown) {
        if (event.finalContent && !isError) shown.text = event.finalContent;
        shown.streaming = false;
        if (event.stopReason === 'aborted') shown.interrupted = true;
      } else if (event.finalContent && !isError) {
        state.items.push({ kind: 'assistant', text: event.finalContent });
      }
      finishStreaming();
      // One line for how the turn ended: a stop keeps what was said so far; an error says why.
      if (event.stopReason === 'aborted') state.items.push({ kind: 'notice', text: shown || event.finalContent ? 'Stopped — the reply so far is kept.' : 'Stopped.' });
      else if (event.stopReason !== 'completed') state.items.push({ kind: 'notice', text: `The turn ended (${event.stopReason.replace(/_/g, ' ')})${event.error ? `: ${event.error}` : ''}` });
      state.running = false;
      state.bill = event.bill ?? null;
      renderChat();
      void refreshSessions();
      break;
    }
  }
  renderStatus();
  if (event.type === 'snapshot') releaseIfSettled();
}

const EVENT_TYPES: StreamEvent['type'][] = ['snapshot', 'user', 'turn_start', 'delta', 'assistant', 'tool_start', 'tool_end', 'inspector', 'notice', 'turn_end'];

/** Opens a session the user picked in the list. */
function open(key: string): void {
  navigation++;
  connect(key);
}

function connect(key: string): void {
  if (source) source.close();
  state.key = key;
  state.items = [];
  state.snapshots = [];
  state.selected = null;
  state.error = null;
  history.replaceState(null, '', `#${encodeURIComponent(key)}`);
  streamOpen = false;
  const es = new EventSource(`/api/sessions/${encodeURIComponent(key)}/events`);
  for (const type of EVENT_TYPES) {
    es.addEventListener(type, (e) => {
      if (source !== es) return;
      onEvent(JSON.parse((e as MessageEvent<string>).data) as StreamEvent);
    });
  }
  es.onopen = () => {
    document.body.dataset.connected = 'true';
  };
  source = es;
  renderSessions();
  renderChat();
  renderInspector();
  renderStatus();
}

// ---- actions ------------------------------------------------------------------------------

async function refreshSessions(): Promise<void> {
  try {
    state.sessions = (await api<{ sessions: SessionListItem[] }>('/api/sessions')).sessions;
  } catch (error) {
    state.error = (error as Error).message;
  }
  renderSessions();
  renderStatus();
}

async function send(): Promise<void> {
  const text = input.value;
  if (!state.key || text.trim() === '') return;
  const typedIn = navigation;
  input.value = '';
  try {
    await whenSettled();
    // The page now shows the session the message was typed for (a switch that was under way
    // when Send was pressed included), unless the user switched again after pressing Send.
    const key = state.key;
    if (navigation !== typedIn || !key) throw new Error('The session changed before the message was sent.');
    await api(`/api/sessions/${encodeURIComponent(key)}/messages`, { method: 'POST', body: { text } });
    state.error = null;
  } catch (error) {
    input.value = text;
    state.error = (error as Error).message;
  }
  renderStatus();
}

async function stop(): Promise<void> {
  if (!state.key) return;
  await api(`/api/sessions/${encodeURIComponent(state.key)}/stop`, { method: 'POST', body: {} }).catch((error: Error) => (state.error = error.message));
}

/** Creates a session (POST `path`) and opens it, unless the user switched elsewhere meanwhile. */
async function createAndOpen(path: string): Promise<void> {
  const switchId = ++navigation;
  creating++;
  try {
    const { key } = await api<{ key: string }>(path, { method: 'POST', body: {} });
    await refreshSessions();
    if (navigation === switchId) connect(key);
  } catch (error) {
    state.error = (error as Error).message;
    renderStatus();
  } finally {
    creating--;
    releaseIfSettled();
  }
}

async function newSession(): Promise<void> {
  await createAndOpen('/api/sessions');
}

async function preparedSession(): Promise<void> {
  await createAndOpen('/api/sessions/prepared');
}

async function boot(): Promise<void> {
  state.info = await api<ServerInfo>('/api/info');
  await refreshSessions();
  const wanted = decodeURIComponent(location.hash.slice(1));
  const key = state.sessions.find((s) => s.key === wanted)?.key ?? state.sessions[0]?.key;
  if (key) open(key);
  else await newSession();
  document.body.dataset.ready = 'true';
}

void boot().catch((error: Error) => {
  state.error = `Could not reach the server: ${error.message}`;
  renderStatus();
});
