import { NanobotError } from '@nanobot/schema';

/** A request the server refuses: carries the HTTP status and a stable `code` for the JSON body. */
export class HttpError extends NanobotError {
  readonly status: number;
  /** Extra response headers (e.g. `Allow` on a 405). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(code, message, options);
    this.status = status;
    this.headers = options.headers ?? {};
  }
}
