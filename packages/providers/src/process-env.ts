/**
 * The process environment where the runtime has one (Node, Bun, Deno, Workers with
 * `nodejs_compat`), an empty one elsewhere (browsers, edge functions, Workers without it): a bare
 * `process.env` is a ReferenceError there, and the providers only read optional knobs and API
 * keys from it, which such a caller passes explicitly. Read on every call, never cached, so a
 * test or a host that sets a variable later is seen.
 */
export function processEnv(): Readonly<Record<string, string | undefined>> {
  const host = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return host?.env ?? {};
}
