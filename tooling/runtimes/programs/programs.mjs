// The programs by name, for the entry that runs several in one process (Node, Bun, Deno). Each
// is imported on its first use, so a program whose imports fail to load in a runtime does not
// take the others down with it. Bundled runtimes get an entry of their own instead
// (src/entries.mjs), which imports the selected programs statically: one bundle per runtime.
// Runs in every runtime under test: plain ECMAScript, no runtime API.
import { describeError, envelope } from './encode.mjs';

/** Program name → loader of its module (`run(inputText) → { text, probe }`). */
export const PROGRAMS = {
  conformance: () => import('./conformance.mjs'),
  dialects: () => import('./dialects.mjs'),
  tools: () => import('./tools.mjs'),
  providers: () => import('./providers.mjs'),
};

/**
 * Runs one program: `{ ok: true, text, probe }`, or `{ ok: false, stage, error }` when its
 * modules fail to load (`stage: 'load'`) or it throws (`stage: 'run'`).
 */
export async function runProgram(name, inputText) {
  const load = PROGRAMS[name];
  if (!load) return { ok: false, stage: 'load', error: `harness: unknown program ${name}` };
  let mod;
  try {
    mod = await load();
  } catch (error) {
    return { ok: false, stage: 'load', error: describeError(error) };
  }
  return envelope(mod.run, inputText);
}
