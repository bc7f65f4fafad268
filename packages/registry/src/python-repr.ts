// Python spellings that leak into model-visible texts the reference produces (type names in
// "got list", `str()` of a thrown KeyError's key, unknown names printed with `str()`).

/** Python's type name for a JSON-ish value: `list`, `str`, `int`, `float`, `bool`, `dict`, `NoneType`. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'object':
      return 'dict';
    default:
      return typeof value;
  }
}

/** Python `str()` of a scalar as the reference prints names: `None`, `True`, `123`. */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}
