import { NanobotError } from '@nanobot/schema';

/**
 * A network request (web_fetch, or a URL inside an exec command) targeted a private, loopback,
 * link-local or metadata address, directly, through DNS or through a redirect. Carried on the
 * tool's error result (see `violationOf`) so the runner can add its non-bypassable SSRF note.
 */
export class SsrfBlockedError extends NanobotError {
  /** The URL (or command URL) that was refused. */
  readonly url: string;
  /** The offending address when one was resolved, else undefined (bad scheme, no host…). */
  readonly address: string | undefined;

  constructor(message: string, url: string, address?: string, options: { cause?: unknown } = {}) {
    super('SSRF_BLOCKED', message, options);
    this.url = url;
    this.address = address;
  }
}
