/**
 * Python truthiness (`bool(value)`) of a JSON-like value: `None`, `False`, `0`, `0.0`, `-0.0`,
 * `""`, `[]` and `{}` are false; everything else is true, `NaN` included (Python's
 * `bool(float("nan"))` is `True`). `undefined` counts as `None`. Pure.
 */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
