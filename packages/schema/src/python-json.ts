// STUB — being implemented by the schema owner.
/** Python `json.dumps(value, ensure_ascii=False)` spelling: `", "` and `": "` separators. */
export function pythonJsonDumps(_value: unknown, _options: { sortKeys?: boolean } = {}): string {
  throw new Error('not implemented');
}
