// Byte-for-byte comparison of a runtime's results with the baseline's, and where they first differ.
import { isDeepStrictEqual } from 'node:util';

/**
 * Compares two results texts (programs/encode.mjs `resultsText`: one case per line). Returns
 * `null` when they are byte-identical, else the first differing case: its id, the JSON path of
 * the first difference inside it, and both values (shortened).
 */
export function firstDifference(baseline, other) {
  if (baseline === other) return null;
  const a = baseline.split('\n');
  const b = other.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i >= a.length || i >= b.length) return { line: i + 1, id: '(end of results)', path: '', baseline: `${a.length} lines`, other: `${b.length} lines` };
  const left = parseLine(a[i]);
  const right = parseLine(b[i]);
  const id = left?.id ?? right?.id ?? `line ${i + 1}`;
  if (left === undefined || right === undefined) return { line: i + 1, id, path: '', baseline: shorten(a[i]), other: shorten(b[i]) };
  const d = firstDifferingPath(left, right, '');
  // Same values, different bytes (key order): name the line, the values are equal as data.
  if (d === null) return { line: i + 1, id, path: '(key order)', baseline: shorten(a[i]), other: shorten(b[i]) };
  return { line: i + 1, id, path: d.path, baseline: shorten(JSON.stringify(d.left) ?? 'undefined'), other: shorten(JSON.stringify(d.right) ?? 'undefined') };
}

function parseLine(line) {
  try {
    return JSON.parse(line.replace(/,$/, ''));
  } catch {
    return undefined;
  }
}

/** The first path (`.out.value.messages[3].content`) where `x` and `y` differ, depth first. */
export function firstDifferingPath(x, y, path) {
  if (isDeepStrictEqual(x, y)) return null;
  const bothObjects = x !== null && y !== null && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y);
  if (!bothObjects) return { path: path || '.', left: x, right: y };
  if (Array.isArray(x)) {
    for (let k = 0; k < Math.max(x.length, y.length); k++) {
      const d = firstDifferingPath(x[k], y[k], `${path}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  // A value on one side and an error on the other (`{ value }` vs `{ error }`): show both whole.
  const xKeys = Object.keys(x).filter((k) => x[k] !== undefined);
  const yKeys = Object.keys(y).filter((k) => y[k] !== undefined);
  if (xKeys.length !== yKeys.length || xKeys.some((k) => !yKeys.includes(k))) return { path: path || '.', left: x, right: y };
  for (const key of xKeys) {
    const d = firstDifferingPath(x[key], y[key], `${path}.${key}`);
    if (d) return d;
  }
  return null;
}

function shorten(text, max = 160) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
