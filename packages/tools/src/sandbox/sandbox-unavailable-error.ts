import { NanobotError } from '@nanobot/schema';

/** `sandbox: 'required'` but no working sandbox exists here (e.g. bubblewrap missing). Code `SANDBOX_UNAVAILABLE`. */
export class SandboxUnavailableError extends NanobotError {
  /** Why the probe failed, as it reported it. */
  readonly reason: string;

  constructor(reason: string, options: { cause?: unknown } = {}) {
    super('SANDBOX_UNAVAILABLE', `exec sandbox required but unavailable: ${reason}. Install bubblewrap (apt-get install bubblewrap) or set sandbox: 'none'.`, options);
    this.reason = reason;
  }
}
