/**
 * Python compatibility, one place for the whole repo: `str.strip()` and its whitespace,
 * truthiness, `int()`/`float()` of text, `json.dumps`/`json.loads` with `NaN`/`Infinity`, and
 * `repr`/`str` of JSON values, each as Python 3 does it (tests compare against Python's own
 * answers in `fixtures/python-cases.json`, written by `scripts/gen-python-cases.py`).
 */
export { pythonJsonDumps, pythonJsonString, pythonNumber } from './python-json.js';
export type { PythonJsonDumpsOptions } from './python-json.js';
export { pythonRepr, pythonStringRepr, pythonStr, pythonTypeName, pythonEquals } from './python-repr.js';
export { parsePythonJson } from './python-json-parse.js';
export { PYTHON_WHITESPACE_CLASS, pythonIsSpace, pythonStrip, pythonLstrip, pythonRstrip, pythonIsBlank } from './python-strip.js';
export { pythonTruthy } from './python-truthy.js';
export { pythonInt, pythonFloat } from './python-cast.js';
