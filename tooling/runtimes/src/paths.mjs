// Where things are, and the harness's progress log (stderr, so stdout stays the report).
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** tooling/runtimes. */
export const runtimesDir = resolve(import.meta.dirname, '..');
/** The repository root. */
export const repoRoot = resolve(runtimesDir, '..', '..');
/** The recorded fixtures (conformance cases, sessions). */
export const fixturesDir = process.env.NANOBOT_FIXTURES_DIR ?? join(repoRoot, 'fixtures');
/**
 * Default work directory: outside the repository, kept between runs so installs are reused. Not
 * under the repository's node_modules/.cache: a consumer there would resolve a package it lacks
 * from the repository's node_modules (lookups walk up), which no user's project can.
 */
export const defaultWorkDir = join(tmpdir(), `nanobot-runtimes-${process.getuid?.() ?? 'user'}`);

/** Writes one progress line to stderr. */
export function log(line) {
  process.stderr.write(`${line}\n`);
}
