/** A safety-boundary refusal recognised from a typed error. */
export type Violation =
  | { kind: 'workspace'; message: string; path?: string }
  | { kind: 'ssrf'; message: string; url?: string };

/** Stable error codes of @nanobot/tools' `WorkspaceViolationError` and `SsrfBlockedError`. */
const WORKSPACE_CODE = 'WORKSPACE_VIOLATION';
const SSRF_CODE = 'SSRF_BLOCKED';

function fromError(value: unknown): Violation | null {
  if (value === null || typeof value !== 'object') return null;
  const err = value as { code?: unknown; message?: unknown; path?: unknown; url?: unknown };
  const message = typeof err.message === 'string' ? err.message : '';
  if (err.code === WORKSPACE_CODE) return { kind: 'workspace', message, ...(typeof err.path === 'string' ? { path: err.path } : {}) };
  if (err.code === SSRF_CODE) return { kind: 'ssrf', message, ...(typeof err.url === 'string' ? { url: err.url } : {}) };
  return null;
}

/**
 * Recognises workspace and SSRF refusals by the typed errors @nanobot/tools uses (their stable
 * `code`), whether thrown or carried on an error result (`violation`, `error` or `cause` field),
 * following `cause` chains. Never inspects free-form text: a tool printing "private address" in
 * its output is not a violation (the reference matched substrings). Pure.
 */
export function classifyViolation(value: unknown): Violation | null {
  const seen = new Set<unknown>();
  let current: unknown = value;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const direct = fromError(current);
    if (direct) return direct;
    const carrier = current as { violation?: unknown; error?: unknown; cause?: unknown };
    for (const candidate of [carrier.violation, carrier.error]) {
      const found = fromError(candidate);
      if (found) return found;
    }
    current = carrier.cause;
  }
  return null;
}
