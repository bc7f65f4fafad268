import type { EventSink, RunnerEvent } from '@nanobot/runner';
import { retryWaitMessage } from '@nanobot/providers';
import type { UsageCost } from '@nanobot/schema';
import { clip, formatDuration, formatToolArgs } from './format-tool-args.js';
import { displayWidth, fitWidth, wrapWidth } from './terminal-width.js';

/** A dollar amount with enough digits for a fraction of a cent. */
function dollars(amount: number): string {
  return `$${amount >= 0.1 ? amount.toFixed(2) : amount.toFixed(4)}`;
}

/** The governor's figures for one request next to what the provider billed (`model_end`). */
export interface RequestTokens {
  tokensEstimated: number;
  tokensCalibrated: number;
  tokensActual: number;
}

/**
 * The turn's bill in plain words: `this turn: 12,400 tokens in (9,800 cached), 310 out, $0.0123`,
 * and with the last request's figures `; last request: 6,200 tokens billed, 6,100 estimated
 * (6,300 expected after calibration)`.
 */
export function turnCostLine(usage: { inputTokens: number; outputTokens: number; cachedTokens: number; cost?: UsageCost }, last?: RequestTokens | null): string | null {
  if (!usage.cost) return null;
  const n = (v: number): string => v.toLocaleString('en-US');
  const cached = usage.cachedTokens > 0 ? ` (${n(usage.cachedTokens)} cached)` : '';
  const request = last
    ? `; last request: ${n(last.tokensActual)} tokens billed, ${n(last.tokensEstimated)} estimated${last.tokensCalibrated !== last.tokensEstimated ? ` (${n(last.tokensCalibrated)} expected after calibration)` : ''}`
    : '';
  return `this turn: ${n(usage.inputTokens)} tokens in${cached}, ${n(usage.outputTokens)} out, ${dollars(usage.cost.total)}${request}`;
}

/** Where and how the renderer writes. */
export interface TerminalRendererOptions {
  /** Receives the streamed reply text. */
  out: NodeJS.WritableStream;
  /** Receives tool activity, status and notices. */
  err: NodeJS.WritableStream;
  /** ANSI colours. */
  color: boolean;
  /** Animate a status line on `err` while the model thinks (only for terminals). */
  spinner: boolean;
  /** The clock, in ms (default `Date.now`; tests pass their own). Called synchronously; must not throw. */
  now?: () => number;
  /** Columns of the terminal: notes are word-wrapped and status lines cut to it (default: no limit). */
  width?: number;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CODES = { dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], bold: [1, 22] } as const;

/**
 * The non-zero exit status an `exec` result ends with (`…\nExit code: 127`), or null. The tool
 * call itself succeeded (the model reads the output), but the command failed and is drawn so.
 */
export function failedExitCode(content: unknown): number | null {
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n') : '';
  const m = /\nExit code: (-?\d+)\s*$/.exec(text);
  return m && Number(m[1]) !== 0 ? Number(m[1]) : null;
}

/**
 * Draws runner events for people: the reply streams to `out` as it arrives; a spinner with the
 * elapsed time runs on `err` while the model thinks or a tool runs; each tool call gets a line
 * when it starts (name, short arguments) and when it ends (ok/error, duration). Use `sink` as
 * an `EventSink`; it never throws and never awaits.
 */
export class TerminalRenderer {
  readonly #o: TerminalRendererOptions;
  #timer: NodeJS.Timeout | null = null;
  #status = '';
  #statusStarted = 0;
  #frame = 0;
  #statusShown = false;
  /** Whether the last character written to the terminal was not a newline. */
  #midLine = false;
  #running = new Map<string, { name: string; args: string; started: number }>();
  /** The last request's estimate vs billed input (shown with the turn's bill). */
  #lastRequest: RequestTokens | null = null;
  /** Text streamed by the latest model answer (to know whether the final reply was shown). */
  lastStreamed = '';
  /** The error the last failed turn was reported with (its reply repeats it: shown once). */
  #lastError: string | null = null;

  readonly #now: () => number;

  constructor(options: TerminalRendererOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Colours `text` when colours are on. */
  paint(style: keyof typeof CODES, text: string): string {
    if (!this.#o.color) return text;
    const [on, off] = CODES[style];
    return `\u001b[${on}m${text}\u001b[${off}m`;
  }

  /**
   * Writes a full line on `err` (after ending a half-written reply line), word-wrapped to the
   * terminal's width: continued lines keep the line's own indent plus two spaces.
   */
  note(line: string): void {
    this.#clearStatus();
    this.#endLine();
    this.#o.err.write(`${this.#wrap(line)}\n`);
  }

  #wrap(text: string): string {
    const width = this.#o.width;
    if (width === undefined) return text;
    return text
      .split('\n')
      .map((line) => {
        if (displayWidth(line) <= width) return line;
        const indent = /^ */.exec(line)![0];
        return `${indent}${wrapWidth(line.slice(indent.length), width, `${indent}  `)}`;
      })
      .join('\n');
  }

  /** `args` cut to the columns a tool line leaves for them beside `fixed` (plain text). */
  #argsFit(args: string, fixed: string): string {
    if (this.#o.width === undefined || args === '') return args;
    const room = this.#o.width - displayWidth(fixed) - 1;
    return room >= 8 ? fitWidth(args, room) : '';
  }

  /** Writes `text` (already laid out) on `err` as it is, after ending a half-written line. */
  block(text: string): void {
    this.#clearStatus();
    this.#endLine();
    this.#o.err.write(`${text}\n`);
  }

  /**
   * Whether the reply `text` of the last turn is already on screen: it streamed, or it is the
   * error the turn's end was reported with (each error is printed once).
   */
  alreadyShown(text: string): boolean {
    const t = text.trim();
    if (t === '') return true;
    if (this.lastStreamed.trim() === t) return true;
    return this.#lastError !== null && (this.#lastError.trim() === t || t.endsWith(this.#lastError.trim()));
  }

  /** Writes reply text on `out`. */
  write(text: string): void {
    if (text === '') return;
    this.#clearStatus();
    this.#o.out.write(text);
    this.#midLine = !text.endsWith('\n');
  }

  /** Ends a half-written line so the next output starts at column 0. */
  #endLine(): void {
    if (this.#midLine) {
      this.#o.out.write('\n');
      this.#midLine = false;
    }
  }

  #startStatus(text: string): void {
    if (!this.#o.spinner) return;
    this.#status = text;
    this.#statusStarted = this.#now();
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#drawStatus(), 100);
      this.#timer.unref();
    }
    this.#drawStatus();
  }

  #drawStatus(): void {
    if (!this.#status) return;
    if (this.#midLine) return;
    const secs = ((this.#now() - this.#statusStarted) / 1000).toFixed(1);
    this.#frame = (this.#frame + 1) % FRAMES.length;
    const room = this.#o.width === undefined ? Infinity : this.#o.width - 3 - secs.length - 2;
    const status = room === Infinity ? this.#status : fitWidth(this.#status, room);
    this.#o.err.write(`\r\u001b[2K${this.paint('cyan', FRAMES[this.#frame])} ${this.paint('dim', `${status} ${secs}s`)}`);
    this.#statusShown = true;
  }

  #clearStatus(): void {
    if (this.#statusShown) {
      this.#o.err.write('\r\u001b[2K');
      this.#statusShown = false;
    }
  }

  /**
   * Shows `text` with the spinner and elapsed time on `err` until the next event replaces it
   * (terminals only; a no-op on a pipe). For waits before the model starts: MCP start-up, the
   * first turn's set-up.
   */
  status(text: string): void {
    this.#startStatus(text);
  }

  /** Stops the spinner (call before prompting or exiting). */
  stop(): void {
    this.#status = '';
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#clearStatus();
    this.#endLine();
  }

  /** The `EventSink` to hand to the agent. */
  readonly sink: EventSink = (event: RunnerEvent) => {
    try {
      this.#handle(event);
    } catch {
      // Drawing must never break a turn.
    }
  };

  #handle(event: RunnerEvent): void {
    switch (event.type) {
      case 'model_start':
        this.lastStreamed = '';
        this.#startStatus(event.purpose === 'turn' ? 'thinking…' : `thinking (${event.purpose.replace(/_/g, ' ')})…`);
        break;
      case 'model_delta':
        this.#status = '';
        this.lastStreamed += event.delta;
        this.write(event.delta);
        break;
      case 'model_end':
        this.#lastRequest =
          event.tokensEstimated !== undefined && event.tokensActual !== undefined
            ? { tokensEstimated: event.tokensEstimated, tokensCalibrated: event.tokensCalibrated ?? event.tokensEstimated, tokensActual: event.tokensActual }
            : null;
        this.#status = '';
        this.#clearStatus();
        this.#endLine();
        break;
      case 'tool_start': {
        const args = formatToolArgs(event.arguments);
        this.#running.set(event.callId, { name: event.name, args, started: this.#now() });
        // One line per call: the arguments are cut to what is left of the terminal's width.
        this.note(`  ${this.paint('cyan', '▸')} ${this.paint('bold', event.name)} ${this.paint('dim', this.#argsFit(args, `  ▸ ${event.name}`))}`);
        this.#startStatus(`running ${[...this.#running.values()].map((r) => r.name).join(', ')}…`);
        break;
      }
      case 'tool_end': {
        const started = this.#running.get(event.callId);
        this.#running.delete(event.callId);
        // The runner reports 0 ms for a call it interrupted: the time since its start line is
        // what the user saw (and equals the runner's figure should it ever report one).
        const took = formatDuration(event.status === 'interrupted' && started ? Math.max(event.durationMs, this.#now() - started.started) : event.durationMs);
        const exit = event.status === 'ok' && event.name === 'exec' ? failedExitCode(event.content) : null;
        const [mark, style, outcome]: [string, 'red' | 'green' | 'yellow' | 'dim', string] =
          exit !== null
            ? ['✗', 'red', `exit ${exit}, ${took}`]
            : event.status === 'ok'
              ? ['✓', 'dim', `ok, ${took}`]
              : event.status === 'interrupted'
                ? ['⏹', 'yellow', `interrupted after ${took}`]
                : ['✗', 'red', `error, ${took}: ${clip(event.detail, 100)}`];
        const shown = this.#argsFit(clip(started?.args ?? '', 40), `  ${mark} ${event.name} ${outcome}`);
        const args = shown ? ` ${this.paint('dim', shown)}` : '';
        const markStyle = mark === '✓' ? 'green' : style === 'dim' ? 'green' : style;
        this.note(`  ${this.paint(markStyle, mark)} ${event.name}${args} ${this.paint(style, outcome)}`);
        if (this.#running.size > 0) this.#startStatus(`running ${[...this.#running.values()].map((r) => r.name).join(', ')}…`);
        else this.#startStatus('thinking…');
        break;
      }
      case 'retry':
        if (event.reason === 'provider') {
          // The reference's own wording for a wait, with why the request failed.
          const wait = retryWaitMessage({ attempt: event.attempt ?? 1, delayMs: event.delayMs ?? 0 });
          this.note(this.paint('yellow', `  ↻ ${wait}${event.detail ? ` (${event.detail})` : ''}`));
          this.#startStatus(`waiting ${Math.max(1, Math.round((event.delayMs ?? 0) / 1000))}s to retry…`);
        } else {
          this.note(this.paint('yellow', `  ↻ retrying (${event.reason.replace(/_/g, ' ')})`));
        }
        break;
      case 'fallback':
        this.note(this.paint('yellow', `  ↪ ${event.from} failed (${event.reason}); trying ${event.to}`));
        break;
      case 'turn_end': {
        this.stop();
        const bill = turnCostLine(event.usage, this.#lastRequest);
        this.#lastRequest = null;
        this.#lastError = null;
        if (bill) this.note(this.paint('dim', bill));
        if (event.stopReason === 'aborted') this.note(this.paint('yellow', '⏹ turn stopped; the history is kept and stays valid'));
        else if (event.stopReason !== 'completed') {
          this.#lastError = event.error ?? event.finalContent;
          const why = event.error ? `: ${clip(event.error, 300)}` : '';
          this.note(this.paint('red', `✗ the turn ${event.stopReason === 'error' ? 'failed' : `ended (${event.stopReason.replace(/_/g, ' ')})`}${why}`));
        }
        break;
      }
      default:
        break;
    }
  }
}
