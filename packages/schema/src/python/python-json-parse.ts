/**
 * Parses JSON the way Python's `json.loads` does: standard JSON plus the bare tokens `NaN`,
 * `Infinity` and `-Infinity` (models and Python producers emit them). Throws a SyntaxError on
 * anything else that is not JSON. Duplicate keys keep the last value, as in Python. Pure.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
  }
  // Swap the non-finite tokens (outside strings only) for unique string sentinels, then revive.
  const tag = `\u0000nf${Math.random().toString(36).slice(2)}:`;
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const rest = text.startsWith('-Infinity', i) ? '-Infinity' : text.startsWith('Infinity', i) ? 'Infinity' : text.startsWith('NaN', i) ? 'NaN' : null;
    if (rest !== null) {
      out += JSON.stringify(tag + rest);
      i += rest.length - 1;
      continue;
    }
    out += ch;
  }
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value === 'string' && value.startsWith(tag)) {
      const token = value.slice(tag.length);
      return token === 'NaN' ? NaN : token === 'Infinity' ? Infinity : -Infinity;
    }
    return value;
  });
}
