import { Writable } from 'node:stream';

/**
 * The terminal as readline sees it, with a mute switch: while muted, readline's echo of typed
 * keys is dropped (the line is still edited and submitted), so text typed during a turn or
 * during start-up never lands on the spinner line. Forwards the terminal's size and `resize`.
 */
export class MutableOutput extends Writable {
  /** Drop what readline writes (set while a turn runs). */
  muted = false;
  readonly #target: NodeJS.WritableStream & { columns?: number; rows?: number; isTTY?: boolean };

  constructor(target: NodeJS.WritableStream & { columns?: number; rows?: number; isTTY?: boolean }) {
    super();
    this.#target = target;
    (target as NodeJS.EventEmitter).on?.('resize', () => this.emit('resize'));
  }

  get columns(): number {
    return this.#target.columns ?? 80;
  }

  get rows(): number {
    return this.#target.rows ?? 24;
  }

  get isTTY(): boolean {
    return this.#target.isTTY === true;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.muted) {
      done();
      return;
    }
    this.#target.write(chunk, (error?: Error | null) => done(error ?? null));
  }
}
