// One shape for what a full validator found wrong (ajv's `ErrorObject` has it; the interpreted
// validator produces it), and the reference-style messages made from it, so that both
// validators word and filter their findings the same way.
import { isRecord } from '../util/is-record.js';

/** One failed keyword, as ajv reports it (`allErrors`). */
export interface SchemaIssue {
  /** The keyword that failed (`required`, `pattern`, …). */
  keyword: string;
  /** JSON Pointer of the value that failed (`/meta/flags/0`; `''` for the root). */
  instancePath: string;
  /** Where the keyword is in the schema (`#/properties/mode/oneOf`), `$ref` targets resolved. */
  schemaPath: string;
  /** The keyword's parameters in ajv's names (`missingProperty`, `additionalProperty`, `type`, `allowedValue`, `limit`, …). */
  params: Record<string, unknown>;
  /** ajv's English message (`must match pattern "^a"`). */
  message?: string | undefined;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `/meta/flags/0` → `meta.flags[0]` (array indices in brackets, as the reference writes them). */
function instancePathLabel(pointer: string, value: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let node: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodePointer(raw);
    if (Array.isArray(node)) {
      path += `[${key}]`;
      node = node[Number(key)];
    } else {
      path = path ? `${path}.${key}` : key;
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return path;
}

function subpath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Validator findings → short, path-qualified messages in the reference's style. Pure. */
export function describeIssues(issues: readonly SchemaIssue[], value: unknown): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    // Branch failures of anyOf/oneOf are noise next to the combinator's own error.
    if (/\/(anyOf|oneOf)\/\d+\//.test(issue.schemaPath)) continue;
    if (issue.keyword === 'if') continue; // the failing then/else branch is reported itself
    const path = instancePathLabel(issue.instancePath, value);
    const label = path || 'parameter';
    const params = issue.params;
    let message: string;
    switch (issue.keyword) {
      case 'required':
        message = `missing required ${subpath(path, String(params['missingProperty']))}`;
        break;
      case 'additionalProperties':
        message = `unexpected parameter ${subpath(path, String(params['additionalProperty']))}`;
        break;
      case 'type':
        message = `${label} should be ${String(params['type']).split(',').join(' or ')}`;
        break;
      case 'const':
        message = `${label} must be ${JSON.stringify(params['allowedValue'])}`;
        break;
      default:
        message = `${label} ${issue.message ?? 'is invalid'}`;
    }
    if (!out.includes(message)) out.push(message);
  }
  return out;
}
