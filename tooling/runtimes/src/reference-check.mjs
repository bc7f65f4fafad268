// The baseline's own check: Node 20's reference-compatible results must equal what the reference
// implementation returned (the fixtures' `expected`). Without it, a harness that called the
// governor wrongly (a renamed option, a missing export) would produce the same wrong output in
// every runtime and call them all identical.
import { isDeepStrictEqual } from 'node:util';

/**
 * Checks every conformance case of the baseline's results `text` against `expected` (case id →
 * `{ expected, raised, compacted }`). Returns `{ checked, matched, mismatches: [{ id, why }] }`.
 */
export function checkAgainstReference(text, expected) {
  const mismatches = [];
  let checked = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const row = JSON.parse(line.replace(/,$/, ''));
    const want = expected.get(row.id);
    if (!want) continue;
    checked++;
    const why = mismatch(row.reference, want);
    if (why) mismatches.push({ id: row.id, why });
  }
  return { checked, matched: checked - mismatches.length, mismatches };
}

function mismatch(got, want) {
  if (!got) return 'no reference result';
  if (want.raised) return got.error ? null : `the reference raised ${want.expected?.error_type}, the harness got a value`;
  if (got.error) return `threw ${got.error}`;
  const v = got.value;
  // prepare_for_model and compact_inflight_overflow return messages plus the compacted-id set.
  if (Array.isArray(v) && v.length > 0 && v.every((t) => t && typeof t === 'object' && 'messages' in t && 'compacted' in t) && want.expected?.outputs) {
    const outputs = v.map((t) => t.messages);
    const ids = v.map((t) => t.compacted);
    if (!isDeepStrictEqual(outputs, want.expected.outputs)) return 'sequence outputs differ';
    return isDeepStrictEqual(ids, want.expected.compacted_tool_call_ids_after_each) ? null : 'compacted ids after each turn differ';
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && 'messages' in v && 'compacted' in v) {
    if (!isDeepStrictEqual(v.messages, want.expected)) return 'messages differ';
    if (want.compacted && !isDeepStrictEqual(v.compacted, want.compacted)) return 'compacted ids differ';
    return null;
  }
  return isDeepStrictEqual(v, want.expected) ? null : 'value differs';
}
