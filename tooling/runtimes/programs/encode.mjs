// Shared by the programs that run inside each runtime: how inputs are read and results written,
// so that two runtimes that compute the same thing write the same bytes.
// Runs in every runtime under test: plain ECMAScript, no runtime API.

/** `JSON.parse` reviver for the fixtures' `{"$float": "NaN" | "Infinity" | "-Infinity"}`. */
export function revive(_key, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.$float === 'string' && Object.keys(value).length === 1) {
    return { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }[value.$float];
  }
  return value;
}

/**
 * Plain-JSON view of a result: Sets become sorted arrays, non-finite numbers `{"$float": …}`,
 * `undefined` keys vanish (as in `JSON.stringify`), class instances keep their own fields.
 */
export function plain(value) {
  return JSON.parse(
    JSON.stringify(value, (_key, v) => {
      if (v instanceof Set) return [...v].sort();
      if (v instanceof Map) return Object.fromEntries([...v].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)));
      if (typeof v === 'number' && !Number.isFinite(v)) return { $float: String(v) };
      if (typeof v === 'bigint') return { $bigint: String(v) };
      return v;
    }),
  );
}

/** Runs `fn` and records its value, or the error it threw (name, code and message). */
export function capture(fn) {
  try {
    return { value: plain(fn()) };
  } catch (error) {
    const e = /** @type {any} */ (error);
    return { error: `${e?.name ?? 'Error'}${e?.code ? ` [${e.code}]` : ''}: ${e?.message ?? String(e)}` };
  }
}

/**
 * The results file: a JSON array, one case per line (`{"id": …, …result}`), so that a byte
 * comparison finds the first differing case by its line.
 */
export function resultsText(results) {
  return `[\n${results.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`;
}

/** {@link capture} for an async function: awaits it, records its value or what it threw. */
export async function captureAsync(fn) {
  try {
    return { value: plain(await fn()) };
  } catch (error) {
    return capture(() => {
      throw error;
    });
  }
}

/**
 * Runs a program's `run` (sync or async) on `inputText`: `{ ok: true, text, probe }`, or
 * `{ ok: false, stage: 'run', error }` when it throws. Every runtime's entry answers with this.
 */
export async function envelope(run, inputText) {
  try {
    return { ok: true, ...(await run(inputText)) };
  } catch (error) {
    return { ok: false, stage: 'run', error: describeError(error) };
  }
}

/** `Name: message` of anything thrown. */
export function describeError(error) {
  const e = /** @type {any} */ (error);
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`;
}
