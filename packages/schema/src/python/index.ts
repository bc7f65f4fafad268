/** Python compatibility: `json.dumps` output, `repr`/`str` of JSON values, as the reference writes them. */
export { pythonJsonDumps, pythonJsonString, pythonNumber } from './python-json.js';
export type { PythonJsonDumpsOptions } from './python-json.js';
export { pythonRepr, pythonStr, pythonTypeName, pythonEquals } from './python-repr.js';
