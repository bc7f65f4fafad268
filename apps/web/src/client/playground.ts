// The governor playground: a history pasted, dropped or picked from the recorded sessions is
// read and governed here, in the browser, by the bundled governor (no server round trip: the
// server only serves this page, its scripts and the recorded sessions as static files). The
// page shows the request that would be sent, the before/after of every message with the rule
// behind each change, and every provider target's legality verdict.
import { GOVERN_TARGETS, type GovernTarget } from '@nanobot/governor';
import { KNOWN_MODELS, loadTokenizer, lookupModel } from '@nanobot/schema';
import { HISTORY_FORMATS, type HistoryFormat, readHistory } from '../playground/read-history.js';
import { runPlayground, tokenizerOfModel, type PlaygroundRun } from '../playground/run-playground.js';
import { fmt, h } from './dom.js';
import { compareView, legalityView, requestView, summaryView, changesView } from './playground-view.js';
import './playground.css';

/** What the person chose; kept in localStorage so a reload loses nothing they typed. */
interface Draft {
  text: string;
  format: HistoryFormat | 'auto';
  target: GovernTarget;
  model: string;
  window: string;
  budget: string;
}

/** A recorded session the server offers as a static file (listed in sessions/index.json). */
interface RecordedSession {
  file: string;
  title: string;
  detail: string;
}

const STORAGE_KEY = 'nanobot.playground.draft';
const DEFAULT_DRAFT: Readonly<Draft> = { text: '', format: 'auto', target: 'anthropic', model: 'claude-sonnet-4-6', window: '', budget: '8000' };
const TARGET_LABELS: Readonly<Record<GovernTarget, string>> = {
  openai: 'OpenAI Chat Completions',
  responses: 'OpenAI Responses',
  anthropic: 'Anthropic Messages',
  gemini: 'Google Gemini',
  bedrock: 'Amazon Bedrock Converse',
  mistral: 'Mistral',
  deepseek: 'DeepSeek',
  openrouter: 'OpenRouter',
  any: 'any (OpenAI and Anthropic at once)',
};

function loadDraft(): Draft {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Draft> | null;
    return { ...DEFAULT_DRAFT, ...(saved && typeof saved === 'object' ? saved : {}) };
  } catch {
    return { ...DEFAULT_DRAFT };
  }
}

/**
 * Builds the page into `app` and wires it. The page's state (the draft, the text a pick replaced)
 * lives in this call, not in the module.
 */
function mountPlayground(app: HTMLElement): void {
  const draft = loadDraft();
  let textBeforePick: string | null = null;

  function saveDraft(): void {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(draft));
    } catch {
      // A history too large for storage stays in the text box; only the reload copy is lost.
    }
  }

  // ---- controls -----------------------------------------------------------------------------

  const textarea = h('textarea', {
    class: 'pg-input',
    'data-testid': 'history-input',
    spellcheck: 'false',
    placeholder: 'Paste a history here (OpenAI chat, Anthropic, Responses or AI SDK JSON), drop a .json file on this box, or pick a recorded session.',
    'aria-label': 'History JSON',
  });
  textarea.value = draft.text;

  const select = (testid: string, label: string, options: { value: string; text: string }[], value: string, onchange: (v: string) => void): HTMLLabelElement => {
    const el = h('select', { 'data-testid': testid, onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value) }, options.map((o) => h('option', { value: o.value }, o.text)));
    el.value = value;
    return h('label', { class: 'pg-field' }, h('span', null, label), el);
  };

  const numberField = (testid: string, label: string, value: string, placeholder: string, onchange: (v: string) => void): { label: HTMLLabelElement; input: HTMLInputElement } => {
    const input = h('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric', 'data-testid': testid, value, placeholder, oninput: (e: Event) => onchange((e.target as HTMLInputElement).value) });
    return { label: h('label', { class: 'pg-field' }, h('span', null, label), input), input };
  };

  const sessionSelect = h('select', { 'data-testid': 'session-pick', onchange: (e: Event) => void pickSession((e.target as HTMLSelectElement).value) }, h('option', { value: '' }, 'Recorded sessions…'));
  const fileInput = h('input', { type: 'file', accept: '.json,application/json', hidden: true, onchange: () => void openFile(fileInput.files?.[0]) });
  const restoreButton = h('button', { class: 'pg-btn', type: 'button', 'data-testid': 'restore-text', hidden: true, onclick: () => restoreText() }, '↶ Back to your text');
  const governButton = h('button', { class: 'pg-btn primary', type: 'button', 'data-testid': 'govern', onclick: () => void governNow() }, 'Govern');
  const status = h('span', { class: 'pg-status', 'data-testid': 'status', role: 'status' });
  const errorBox = h('div', { class: 'pg-error', role: 'alert', 'data-testid': 'error', hidden: true });

  const windowField = numberField('window', 'Context window', draft.window, '', (v) => {
    draft.window = v;
    saveDraft();
  });
  const budgetField = numberField('budget', 'Input budget (tokens)', draft.budget, '', (v) => {
    draft.budget = v;
    saveDraft();
  });

  function modelHint(): void {
    const info = lookupModel(draft.model);
    windowField.input.placeholder = info ? `${fmt(info.contextWindow)} (${info.id})` : 'unknown model: set it';
    budgetField.input.placeholder = 'from the window';
  }

  const modelOptions = KNOWN_MODELS.map((m) => ({ value: m.id, text: `${m.id} · ${fmt(m.contextWindow)} · ${m.tokenizer}` }));
  const controls = h(
    'div',
    { class: 'pg-controls' },
    select('format', 'Format', [{ value: 'auto', text: 'Detect' }, ...HISTORY_FORMATS.map((f) => ({ value: f.format, text: f.label }))], draft.format, (v) => {
      draft.format = v as Draft['format'];
      saveDraft();
    }),
    select('target', 'Target', GOVERN_TARGETS.map((t) => ({ value: t, text: TARGET_LABELS[t] })), draft.target, (v) => {
      draft.target = v as GovernTarget;
      saveDraft();
    }),
    select('model', 'Model (window · tokenizer)', modelOptions, draft.model, (v) => {
      draft.model = v;
      modelHint();
      saveDraft();
    }),
    windowField.label,
    budgetField.label,
  );
  modelHint();

  textarea.addEventListener('input', () => {
    draft.text = textarea.value;
    saveDraft();
  });
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void governNow();
  });
  textarea.addEventListener('dragover', (e) => {
    e.preventDefault();
    textarea.classList.add('dragging');
  });
  textarea.addEventListener('dragleave', () => textarea.classList.remove('dragging'));
  textarea.addEventListener('drop', (e) => {
    e.preventDefault();
    textarea.classList.remove('dragging');
    const file = e.dataTransfer?.files?.[0];
    if (file) void openFile(file);
    else {
      const text = e.dataTransfer?.getData('text/plain');
      if (text) replaceText(text);
    }
  });

  /** Puts `text` in the box; what the person had typed stays one click away. */
  function replaceText(text: string): void {
    if (textarea.value.trim() !== '' && textarea.value !== text) {
      textBeforePick = textarea.value;
      restoreButton.hidden = false;
    }
    textarea.value = text;
    draft.text = text;
    saveDraft();
  }

  function restoreText(): void {
    if (textBeforePick === null) return;
    textarea.value = textBeforePick;
    draft.text = textBeforePick;
    textBeforePick = null;
    restoreButton.hidden = true;
    saveDraft();
  }

  async function openFile(file: File | undefined): Promise<void> {
    if (!file) return;
    replaceText(await file.text());
    await governNow();
  }

  async function pickSession(file: string): Promise<void> {
    if (!file) return;
    status.textContent = 'Loading the session…';
    try {
      const res = await fetch(`sessions/${encodeURIComponent(file)}`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      replaceText(await res.text());
    } catch (error) {
      showError(`The recorded session could not be loaded (${error instanceof Error ? error.message : String(error)}). Your text is unchanged.`);
      return;
    }
    await governNow();
  }

  async function loadSessions(): Promise<void> {
    try {
      const res = await fetch('sessions/index.json');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const list = (await res.json()) as RecordedSession[];
      for (const s of list) sessionSelect.append(h('option', { value: s.file, title: s.detail }, s.title));
    } catch {
      sessionSelect.append(h('option', { value: '', disabled: true }, '(the recorded sessions are not available)'));
    }
  }

  // ---- results ------------------------------------------------------------------------------

  const results = h('section', { class: 'pg-results', 'data-testid': 'results' }, h('p', { class: 'pg-empty' }, 'The request, what changed and why, and the legality verdicts appear here.'));

  function showError(message: string): void {
    errorBox.replaceChildren(h('strong', null, 'Cannot govern this: '), message, h('div', { class: 'pg-error-hint' }, 'Your text is kept as you typed it; fix it and press Govern again.'));
    errorBox.hidden = false;
    status.textContent = '';
    document.body.dataset.state = 'error';
  }

  const positive = (v: string): number | null => {
    const n = Number(v);
    return v.trim() !== '' && Number.isFinite(n) && n > 0 ? Math.trunc(n) : null;
  };

  async function governNow(): Promise<void> {
    errorBox.hidden = true;
    document.body.dataset.state = 'running';
    governButton.disabled = true;
    try {
      let history;
      try {
        history = readHistory(textarea.value, draft.format === 'auto' ? undefined : draft.format);
      } catch (error) {
        showError(error instanceof Error ? error.message : String(error));
        return;
      }
      for (const [field, value] of [['Context window', draft.window], ['Input budget', draft.budget]] as const) {
        if (value.trim() !== '' && positive(value) === null) {
          showError(`${field} must be a positive number of tokens, not ${JSON.stringify(value)}.`);
          return;
        }
      }
      const tokenizer = tokenizerOfModel(draft.model);
      status.textContent = `Loading the ${tokenizer === 'claude' ? 'cl100k_base (Claude estimate)' : tokenizer} tokenizer…`;
      await loadTokenizer(tokenizer);
      status.textContent = 'Governing…';
      let run: PlaygroundRun;
      try {
        run = runPlayground(history, { target: draft.target, model: draft.model, contextWindowTokens: positive(draft.window), budget: positive(draft.budget) });
      } catch (error) {
        showError(error instanceof Error ? error.message : String(error));
        return;
      }
      render(run);
      status.textContent = `Governed in your browser · ${run.formatLabel} · ${run.tokenizer === 'claude' ? 'cl100k_base (Claude estimate)' : run.tokenizer}`;
      document.body.dataset.state = 'done';
    } finally {
      governButton.disabled = false;
    }
  }

  function render(run: PlaygroundRun): void {
    results.replaceChildren(
      summaryView(run),
      h('h2', null, 'What changed, and why'),
      changesView(run),
      h('h2', null, 'Before → after'),
      compareView(run),
      h('h2', null, 'Legal for each provider?'),
      legalityView(run, TARGET_LABELS),
      h('h2', null, 'The request that would be sent'),
      requestView(run),
    );
  }

  // ---- page ---------------------------------------------------------------------------------

  app.append(
    h(
      'header',
      { class: 'pg-header' },
      h('div', { class: 'pg-brand' }, h('span', { class: 'logo' }, 'nb'), 'Governor playground'),
      h('p', { class: 'pg-sub' }, 'Computed in your browser by the bundled ', h('code', null, '@nanobot/governor'), ': nothing you paste leaves this page.'),
      h('a', { class: 'pg-link', href: '/' }, '← Web demo'),
    ),
    h(
      'main',
      { class: 'pg-main' },
      h(
        'section',
        { class: 'pg-editor' },
        h('div', { class: 'pg-row' }, sessionSelect, h('button', { class: 'pg-btn', type: 'button', onclick: () => fileInput.click() }, 'Open file…'), fileInput, restoreButton),
        textarea,
        controls,
        h('div', { class: 'pg-row' }, governButton, status),
        errorBox,
      ),
      results,
    ),
  );
  void loadSessions().then(() => {
    document.body.dataset.ready = '';
  });
}

mountPlayground(document.getElementById('playground')!);
