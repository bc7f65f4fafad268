import type { EventSink, RunnerEvent } from '@nanobot/runner';
import { retryWaitMessage } from '@nanobot/providers';
import type { UsageCost } from '@nanobot/schema';
import { clip, formatDuration, formatToolArgs } from './format-tool-args.js';

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
 * The turn's bill: `tokens 12,400 in (9,800 cached) · 310 out · $0.0123`, and with the last
 * request's figures `· last request ~6,100 estimated (6,300 calibrated), 6,200 billed`.
 */
export function turnCostLine(usage: { inputTokens: number; outputTokens: number; cachedTokens: number; cost?: UsageCost }, last?: RequestTokens | null): string | null {
  if (!usage.cost) return null;
  const n = (v: number): string => v.toLocaleString('en-US');
  const cached = usage.cachedTokens > 0 ? ` (${n(usage.cachedTokens)} cached)` : '';
  const request = last
    ? ` · last request ~${n(last.tokensEstimated)} estimated${last.tokensCalibrated !== last.tokensEstimated ? ` (${n(last.tokensCalibrated)} calibrated)` : ''}, ${n(last.tokensActual)} billed`
    : '';
  return `tokens ${n(usage.inputTokens)} in${cached} · ${n(usage.outputTokens)} out · ${dollars(usage.cost.total)}${request}`;
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

  /** Writes a full line on `err` (after ending a half-written reply line). */
  note(line: string): void {
    this.#clearStatus();
    this.#endLine();
    this.#o.err.write(`${line}\n`);
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
    this.#o.err.write(`\r\u001b[2K${this.paint('cyan', FRAMES[this.#frame])} ${this.paint('dim', `${this.#status} ${secs}s`)}`);
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
        this.note(`  ${this.paint('cyan', '▸')} ${this.paint('bold', event.name)} ${this.paint('dim', args)}`);
        this.#startStatus(`running ${[...this.#running.values()].map((r) => r.name).join(', ')}…`);
        break;
      }
      case 'tool_end': {
        const started = this.#running.get(event.callId);
        this.#running.delete(event.callId);
        // The runner reports 0 ms for a call it interrupted: the time since its start line is
        // what the user saw (and equals the runner's figure should it ever report one).
        const took = formatDuration(event.status === 'interrupted' && started ? Math.max(event.durationMs, this.#now() - started.started) : event.durationMs);
        const args = started?.args ? ` ${this.paint('dim', clip(started.args, 40))}` : '';
        const exit = event.status === 'ok' && event.name === 'exec' ? failedExitCode(event.content) : null;
        if (exit !== null) this.note(`  ${this.paint('red', '✗')} ${event.name}${args} ${this.paint('red', `exit ${exit}, ${took}`)}`);
        else if (event.status === 'ok') this.note(`  ${this.paint('green', '✓')} ${event.name}${args} ${this.paint('dim', `ok, ${took}`)}`);
        else if (event.status === 'interrupted') this.note(`  ${this.paint('yellow', '⏹')} ${event.name}${args} ${this.paint('yellow', `interrupted after ${took}`)}`);
        else this.note(`  ${this.paint('red', '✗')} ${event.name}${args} ${this.paint('red', `error, ${took}: ${clip(event.detail, 100)}`)}`);
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
        if (bill) this.note(this.paint('dim', bill));
        if (event.stopReason === 'aborted') this.note(this.paint('yellow', '⏹ turn stopped; the history is kept and stays valid'));
        else if (event.stopReason !== 'completed') this.note(this.paint('red', `✗ the turn ended: ${event.stopReason}${event.error ? ` — ${clip(event.error, 200)}` : ''}`));
        break;
      }
      default:
        break;
    }
  }
}
