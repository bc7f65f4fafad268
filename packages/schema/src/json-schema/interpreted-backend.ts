// Full JSON Schema validation without code generation: @cfworker/json-schema interprets the
// schema (Cloudflare Workers, Vercel's edge runtime and pages with a strict CSP forbid the
// `new Function` ajv compiles with). Its findings are turned into what ajv reports for the same
// value — ajv's keywords, parameters and English, in ajv's order — so that the messages a model
// reads are the same whichever validator ran (differential tests against ajv hold it to that).
import { dereference, validate, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { JsonSchema } from './tool-definition.js';
import type { JsonSchemaBackend, JsonSchemaDraft } from './full-json-schema.js';
import { describeIssues, type SchemaIssue } from './schema-issues.js';
import { isRecord } from '../util/is-record.js';

type Node = Record<string, unknown>;

// ajv evaluates a schema's keywords group by group (those for any type, then number, string,
// array and object keywords), in this order within a group (its RULES, draft 2020-12; draft-07
// has a subset in the same order).
const GROUPS: readonly (readonly string[])[] = [
  ['$dynamicRef', '$recursiveRef', '$ref', 'type', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else'],
  ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'format'],
  ['maxLength', 'minLength', 'pattern', 'format'],
  ['maxItems', 'minItems', 'prefixItems', 'additionalItems', 'items', 'contains', 'uniqueItems', 'maxContains', 'minContains', 'unevaluatedItems'],
  ['maxProperties', 'minProperties', 'required', 'propertyNames', 'additionalProperties', 'dependencies', 'properties', 'patternProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties'],
];
const GROUP_OF_TYPE: Record<string, number> = { number: 1, string: 2, array: 3, object: 4 };
const KEYWORDS_OF_GROUP = GROUPS.map((g) => new Set(g));

function dataType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Where ajv reports `keyword` of `node` for a value of type `type`: `[group, index]`. */
function keywordRank(keyword: string, node: Node, type: string): number {
  if (keyword === 'type') {
    // One type whose group has keywords in the schema: checked inside that group (after the
    // generic keywords); otherwise before everything else.
    const t = node['type'];
    const group = typeof t === 'string' ? GROUP_OF_TYPE[t] : undefined;
    if (group !== undefined && Object.keys(node).some((k) => KEYWORDS_OF_GROUP[group]!.has(k))) return group * 100 + 99;
    return -1;
  }
  if (keyword === 'format') return (type === 'number' ? 1 : 2) * 100 + GROUPS[type === 'number' ? 1 : 2]!.indexOf('format');
  for (let g = 0; g < GROUPS.length; g++) {
    const i = GROUPS[g]!.indexOf(keyword);
    if (i >= 0) return g * 100 + i;
  }
  return 1_000;
}

function decodeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // not percent-encoded
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
}

function segments(location: string): string[] {
  return location === '#' ? [] : location.replace(/^#\//, '').split('/').map(decodeSegment);
}

/** JSON Pointer as ajv writes `instancePath` (`/a/b~1c`), from cfworker's `#/a/b~1c` (URI-encoded). */
function instancePath(location: string): string {
  return segments(location).map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

interface Compiled {
  root: Node | boolean;
  lookup: Record<string, Schema | boolean>;
}

function resolveRef(node: Node, compiled: Compiled): unknown {
  const uri = (node as { __absolute_ref__?: string }).__absolute_ref__ ?? node['$ref'];
  return typeof uri === 'string' ? compiled.lookup[uri] : undefined;
}

/** The schema node at a cfworker keyword location (following `$ref`s), or `undefined`. */
function schemaAt(location: string, compiled: Compiled): unknown {
  let node: unknown = compiled.root;
  for (const segment of segments(location)) {
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    if (segment === '$ref' && isRecord(node)) node = resolveRef(node, compiled);
    else node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * ajv's order as a sort key: walks the keyword location through the schema and the instance
 * location through the value, ranking each keyword as ajv would evaluate it, properties in the
 * schema's order, items and instance keys in the value's order. A keyword's own error comes
 * after those of its subschemas (ajv reports anyOf/oneOf/if after their branches).
 */
function orderKey(unit: OutputUnit, compiled: Compiled, value: unknown): number[] {
  const key: number[] = [];
  const kw = segments(unit.keywordLocation);
  const inst = segments(unit.instanceLocation);
  let node: unknown = compiled.root;
  let data: unknown = value;
  let i = 0;
  let j = 0;
  const descend = (): void => {
    const seg = inst[j++];
    const index = Array.isArray(data) ? Number(seg) : isRecord(data) ? Object.keys(data).indexOf(seg ?? '') : 0;
    key.push(index);
    data = Array.isArray(data) ? data[Number(seg)] : isRecord(data) ? data[seg ?? ''] : undefined;
  };
  while (i < kw.length && isRecord(node)) {
    const keyword = kw[i++]!;
    if (keyword === 'dependantRequired') {
      key.push(keywordRank('dependentRequired', node, dataType(data)));
      break;
    }
    key.push(keywordRank(keyword, node, dataType(data)));
    const sub = node[keyword];
    switch (keyword) {
      case '$ref':
      case '$recursiveRef':
        node = resolveRef(node, compiled);
        break;
      case 'properties':
      case 'patternProperties':
      case 'dependentSchemas':
      case 'dependencies': {
        const name = kw[i++];
        if (name === undefined) return [...key, Infinity];
        key.push(isRecord(sub) ? Object.keys(sub).indexOf(name) : 0);
        node = isRecord(sub) ? sub[name] : undefined;
        if (keyword === 'properties' || keyword === 'patternProperties') descend();
        break;
      }
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
      case 'prefixItems': {
        const index = kw[i++];
        if (index === undefined) return [...key, Infinity];
        key.push(Number(index));
        node = Array.isArray(sub) ? sub[Number(index)] : undefined;
        if (keyword === 'prefixItems') descend();
        break;
      }
      case 'items':
        if (Array.isArray(sub)) {
          const index = kw[i++];
          if (index === undefined) return [...key, Infinity];
          key.push(Number(index));
          node = sub[Number(index)];
        } else node = sub;
        if (j < inst.length) descend();
        break;
      case 'additionalProperties':
      case 'unevaluatedProperties':
      case 'propertyNames':
      case 'additionalItems':
      case 'unevaluatedItems':
      case 'contains':
        node = sub;
        if (j < inst.length) descend();
        break;
      case 'not':
      case 'if':
      case 'then':
      case 'else':
        node = sub;
        break;
      default:
        return [...key, Infinity];
    }
  }
  return [...key, Infinity];
}

function compareKeys(a: number[], b: number[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return a.length - b.length;
}

/** The text between the first and the last `"` of a cfworker message: the key it names. */
function quoted(error: string): string {
  return error.slice(error.indexOf('"') + 1, error.lastIndexOf('"'));
}

function typeParam(type: unknown): string {
  return Array.isArray(type) ? type.join(',') : String(type);
}

function limitMessage(keyword: string, limit: unknown, what: string): string {
  return `must NOT have ${keyword.startsWith('max') ? 'more' : 'fewer'} than ${String(limit)} ${what}`;
}

const LIMIT_COMPARISON: Record<string, string> = { maximum: '<=', minimum: '>=', exclusiveMaximum: '<', exclusiveMinimum: '>' };

/** ajv's `uniqueItems` search: the last duplicate pair, found from the end as ajv's loops do. */
function duplicatePair(items: unknown[], itemSchema: unknown): [number, number] {
  const types = isRecord(itemSchema) ? itemSchema['type'] : undefined;
  const itemTypes = types === undefined ? [] : Array.isArray(types) ? types : [types];
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
    const indices = new Map<unknown, number>();
    for (let i = items.length - 1; i >= 0; i--) {
      let item = items[i];
      if (!itemTypes.includes(dataType(item)) && !(itemTypes.includes('integer') && Number.isInteger(item))) continue;
      if (itemTypes.length > 1 && typeof item === 'string') item = `${item}_`;
      const j = indices.get(item);
      if (j !== undefined) return [i, j];
      indices.set(item, i);
    }
    return [0, 0];
  }
  for (let i = items.length - 1; i >= 0; i--) {
    for (let j = i - 1; j >= 0; j--) if (JSON.stringify(items[i]) === JSON.stringify(items[j])) return [i, j];
  }
  return [0, 0];
}

/** One cfworker unit as ajv's error, or `null` for a unit that only wraps its subschema's errors. */
function toIssue(unit: OutputUnit, compiled: Compiled, value: unknown): SchemaIssue | null {
  const schemaPath = unit.keywordLocation.includes('/$ref/') ? `#/${unit.keywordLocation.slice(unit.keywordLocation.lastIndexOf('/$ref/') + 6)}` : unit.keywordLocation;
  const base = { keyword: unit.keyword, instancePath: instancePath(unit.instanceLocation), schemaPath };
  const parentLocation = unit.keywordLocation.slice(0, unit.keywordLocation.lastIndexOf('/'));
  const parent = schemaAt(parentLocation, compiled);
  const schema = schemaAt(unit.keywordLocation, compiled);
  const data = schemaAtData(value, unit.instanceLocation);
  switch (unit.keyword) {
    case 'false':
      return { keyword: 'false schema', instancePath: base.instancePath, schemaPath: unit.keywordLocation, params: {}, message: 'boolean schema is false' };
    case 'type':
      return { ...base, params: { type: typeParam(schema) }, message: `must be ${typeParam(schema)}` };
    case 'const':
      return { ...base, params: { allowedValue: schema }, message: 'must be equal to constant' };
    case 'enum':
      return { ...base, params: { allowedValues: schema }, message: 'must be equal to one of the allowed values' };
    case 'not':
      return { ...base, params: {}, message: 'must NOT be valid' };
    case 'anyOf':
      return { ...base, params: {}, message: 'must match a schema in anyOf' };
    case 'oneOf':
      return { ...base, params: { passingSchemas: null }, message: 'must match exactly one schema in oneOf' };
    case 'if': {
      const clause = unit.error.includes('"then"') ? 'then' : 'else';
      return { ...base, params: { failingKeyword: clause }, message: `must match "${clause}" schema` };
    }
    case 'required': {
      const missingProperty = quoted(unit.error);
      return { ...base, params: { missingProperty }, message: `must have required property '${missingProperty}'` };
    }
    case 'minProperties':
    case 'maxProperties':
      return { ...base, params: { limit: schema }, message: limitMessage(unit.keyword, schema, 'properties') };
    case 'minItems':
    case 'maxItems':
      return { ...base, params: { limit: schema }, message: limitMessage(unit.keyword, schema, 'items') };
    case 'minLength':
    case 'maxLength':
      return { ...base, params: { limit: schema }, message: limitMessage(unit.keyword, schema, 'characters') };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const comparison = LIMIT_COMPARISON[unit.keyword]!;
      return { ...base, params: { comparison, limit: schema }, message: `must be ${comparison} ${String(schema)}` };
    }
    case 'multipleOf':
      return { ...base, params: { multipleOf: schema }, message: `must be multiple of ${String(schema)}` };
    case 'pattern':
      return { ...base, params: { pattern: schema }, message: `must match pattern "${String(schema)}"` };
    case 'format':
      return { ...base, params: { format: schema }, message: `must match format "${String(schema)}"` };
    case 'uniqueItems': {
      const [i, j] = Array.isArray(data) ? duplicatePair(data, isRecord(parent) ? parent['items'] : undefined) : [0, 0];
      return { ...base, params: { i, j }, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` };
    }
    case 'contains':
    case 'minContains':
    case 'maxContains': {
      const node: Node = isRecord(parent) ? parent : {};
      const min = typeof node['minContains'] === 'number' ? node['minContains'] : 1;
      const max = node['maxContains'];
      const message = typeof max === 'number' ? `must contain at least ${min} and no more than ${max} valid item(s)` : `must contain at least ${min} valid item(s)`;
      return { ...base, keyword: 'contains', schemaPath: `${parentLocation}/contains`, params: typeof max === 'number' ? { minContains: min, maxContains: max } : { minContains: min }, message };
    }
    case 'dependentRequired':
    case 'dependencies': {
      const property = unit.error.slice(unit.error.indexOf('"') + 1, unit.error.indexOf('" but'));
      const table = isRecord(parent) ? parent[unit.keyword] : undefined;
      const deps = isRecord(table) ? table[property] : undefined;
      if (!Array.isArray(deps)) return null; // a schema dependency: its own errors follow
      const missingProperty = unit.error.slice(unit.error.lastIndexOf('have "') + 6, unit.error.lastIndexOf('"'));
      const word = deps.length === 1 ? 'property' : 'properties';
      return { ...base, params: { property, missingProperty, depsCount: deps.length, deps: deps.join(', ') }, message: `must have ${word} ${deps.join(', ')} when property ${property} is present` };
    }
    case 'additionalProperties':
      if (schema !== false) return null;
      return { ...base, params: { additionalProperty: quoted(unit.error) }, message: 'must NOT have additional properties' };
    case 'unevaluatedProperties':
      if (schema !== false) return null;
      return { ...base, params: { unevaluatedProperty: quoted(unit.error) }, message: 'must NOT have unevaluated properties' };
    case 'propertyNames':
      return { ...base, params: { propertyName: quoted(unit.error) }, message: 'property name must be valid' };
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems': {
      if (schema !== false || !isRecord(parent)) return null;
      const prefix = unit.keyword === 'additionalItems' ? parent['items'] : parent['prefixItems'];
      const limit = Array.isArray(prefix) ? prefix.length : 0;
      return { ...base, params: { limit }, message: `must NOT have more than ${limit} items` };
    }
    default:
      // $ref, properties, patternProperties, prefixItems, allOf, dependentSchemas: wrappers
      // around the errors of their subschemas, which follow them.
      return null;
  }
}

function schemaAtData(value: unknown, location: string): unknown {
  let node = value;
  for (const segment of segments(location)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isRecord(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

const FALSE_REPORTED_BY_PARENT = new Set(['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'unevaluatedItems']);

/**
 * Drops the `false` unit that follows a keyword whose subschema is `false` and which ajv reports
 * itself (`additionalProperties: false` → "must NOT have additional properties"): ajv does not
 * report the boolean schema there, as it does under `properties` or `anyOf`.
 */
function dropFalseUnder(units: OutputUnit[]): OutputUnit[] {
  const out: OutputUnit[] = [];
  for (let k = 0; k < units.length; k++) {
    const unit = units[k]!;
    out.push(unit);
    const next = units[k + 1];
    if (next !== undefined && next.keyword === 'false' && FALSE_REPORTED_BY_PARENT.has(unit.keyword) && next.instanceLocation.startsWith(`${unit.instanceLocation}/`)) k++;
  }
  return out;
}

function walkSchema(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walkSchema(child, visit);
    return;
  }
  if (!isRecord(node)) return;
  visit(node);
  for (const [key, child] of Object.entries(node)) {
    // Values of these keywords are data, not schemas.
    if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
    walkSchema(child, visit);
  }
}

/** What ajv refuses when it compiles: patterns that are not regular expressions, `$ref`s to nowhere. */
function checkCompilable(compiled: Compiled): void {
  walkSchema(compiled.root, (node) => {
    if (typeof node['pattern'] === 'string') new RegExp(node['pattern'], 'u');
    if (isRecord(node['patternProperties'])) for (const pattern of Object.keys(node['patternProperties'])) new RegExp(pattern, 'u');
    if (typeof node['$ref'] === 'string' && resolveRef(node, compiled) === undefined) {
      throw new Error(`can't resolve reference ${node['$ref']} from id #`);
    }
  });
}

/** The validator that needs no code generation (@cfworker/json-schema, messages as ajv's). */
export const interpretedBackend: JsonSchemaBackend = {
  name: 'interpreted',
  compile(schema: JsonSchema, _draft: JsonSchemaDraft) {
    // cfworker annotates the schema objects it is given: validate a copy. Draft 2020-12 for both
    // drafts, as ajv: keywords beside a `$ref` are evaluated too (cfworker's draft-07 mode
    // ignores them), and array-form `items` works in every draft there.
    const root = JSON.parse(JSON.stringify(schema)) as Node;
    const compiled: Compiled = { root, lookup: dereference(root as Schema) };
    checkCompilable(compiled);
    return (value) => {
      // cfworker refuses `undefined` anywhere; as JSON (what tool arguments are) it is absent.
      const data: unknown = value === undefined ? null : JSON.parse(JSON.stringify(value));
      const result = validate(data, root as Schema, '2020-12', compiled.lookup, false);
      if (result.valid) return [];
      const issues: { issue: SchemaIssue; key: number[] }[] = [];
      for (const unit of dropFalseUnder(result.errors)) {
        const issue = toIssue(unit, compiled, data);
        if (issue !== null) issues.push({ issue, key: orderKey(unit, compiled, data) });
      }
      // Stable: units with equal keys keep cfworker's order.
      issues.sort((a, b) => compareKeys(a.key, b.key));
      return describeIssues(
        issues.map((i) => i.issue),
        data,
      );
    };
  },
};
