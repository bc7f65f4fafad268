// Full JSON Schema validation without code generation: @cfworker/json-schema interprets the
// schema (Cloudflare Workers, Vercel's edge runtime and pages with a strict CSP forbid the
// `new Function` ajv compiles with). Its findings are turned into what ajv reports for the same
// value — ajv's keywords, parameters and English, in ajv's order — so that the messages a model
// reads are the same whichever validator ran (differential tests against ajv hold it to that).
import { deepCompareStrict, dereference, format as cfworkerFormats, validate, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { JsonSchema } from './tool-definition.js';
import type { JsonSchemaBackend, JsonSchemaDraft } from './json-schema-backend.js';
import { describeIssues, type SchemaIssue } from './schema-issues.js';
import { isRecord } from '../util/is-record.js';

type Node = Record<string, unknown>;

// cfworker reports a `false` subschema without its schema location (it writes the instance's
// there), so the copy it validates has `{ not: {} }` in place of every `false` subschema,
// marked with this key (cfworker ignores unknown keys): same verdict, a located error.
const FALSE_MARK = 'x-nanobot-false';
const isFalse = (schema: unknown): boolean => isRecord(schema) && schema[FALSE_MARK] === true;

// Keywords whose value is a schema, a list of schemas, or a map of schemas (the rest are data).
const SCHEMA_VALUED = new Set(['additionalItems', 'unevaluatedItems', 'items', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'not', 'if', 'then', 'else']);
const SCHEMA_LISTS = new Set(['prefixItems', 'items', 'allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAPS = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies']);

function markFalse(schema: unknown): unknown {
  if (schema === false) return { not: {}, [FALSE_MARK]: true };
  if (!isRecord(schema)) return schema;
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_LISTS.has(key) && Array.isArray(value)) schema[key] = value.map(markFalse);
    else if (SCHEMA_VALUED.has(key)) schema[key] = markFalse(value);
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) for (const [name, sub] of Object.entries(value)) value[name] = Array.isArray(sub) ? sub : markFalse(sub);
  }
  return schema;
}

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

/**
 * ajv's `uniqueItems` search: the first duplicate pair its loops meet, scanning from the end.
 * With scalar item types it skips items of other types (so two `null`s under `type: string`
 * items are no duplicate); `null` when it finds none.
 */
function duplicatePair(items: unknown[], itemSchema: unknown): [number, number] | null {
  const types = isRecord(itemSchema) ? itemSchema['type'] : undefined;
  const itemTypes: unknown[] = types === undefined ? [] : Array.isArray(types) ? types : [types];
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
    const indices = new Map<unknown, number>();
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (!itemTypes.includes(dataType(item)) && !(itemTypes.includes('integer') && Number.isInteger(item))) continue;
      const j = indices.get(item);
      if (j !== undefined) return [i, j];
      indices.set(item, i);
    }
    return null;
  }
  for (let i = items.length - 1; i >= 0; i--) {
    for (let j = i - 1; j >= 0; j--) if (deepCompareStrict(items[i], items[j])) return [i, j];
  }
  return null;
}

/** One cfworker unit as ajv's error, or `null` for a unit that only wraps its subschema's errors. */
function toIssue(unit: OutputUnit, compiled: Compiled, value: unknown): SchemaIssue | null {
  const schemaPath = unit.keywordLocation.includes('/$ref/') ? `#/${unit.keywordLocation.slice(unit.keywordLocation.lastIndexOf('/$ref/') + 6)}` : unit.keywordLocation;
  // A property name's own errors: ajv reports them at the object, cfworker at the key.
  const location = unit.keywordLocation.includes('/propertyNames/') ? unit.instanceLocation.slice(0, unit.instanceLocation.lastIndexOf('/')) : unit.instanceLocation;
  const base = { keyword: unit.keyword, instancePath: instancePath(location), schemaPath };
  const parentLocation = unit.keywordLocation.slice(0, unit.keywordLocation.lastIndexOf('/'));
  const parent = schemaAt(parentLocation, compiled);
  const schema = schemaAt(unit.keywordLocation, compiled);
  const data = schemaAtData(value, unit.instanceLocation);
  if (unit.keyword === 'not' && isFalse(parent)) {
    // A `false` subschema: ajv reports the parent keyword itself where it has an error of its own.
    if (FALSE_REPORTED_BY_PARENT.has(parentLocation.slice(parentLocation.lastIndexOf('/') + 1))) return null;
    return { keyword: 'false schema', instancePath: base.instancePath, schemaPath: parentLocation, params: {}, message: 'boolean schema is false' };
  }
  switch (unit.keyword) {
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
      const pair = Array.isArray(data) ? duplicatePair(data, isRecord(parent) ? parent['items'] : undefined) : null;
      if (pair === null) return null;
      const [i, j] = pair;
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
      if (!isFalse(schema)) return null;
      return { ...base, params: { additionalProperty: quoted(unit.error) }, message: 'must NOT have additional properties' };
    case 'unevaluatedProperties':
      if (!isFalse(schema)) return null;
      return { ...base, params: { unevaluatedProperty: quoted(unit.error) }, message: 'must NOT have unevaluated properties' };
    case 'propertyNames':
      return { ...base, params: { propertyName: quoted(unit.error) }, message: 'property name must be valid' };
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems': {
      if (!isFalse(schema) || !isRecord(parent)) return null;
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

const CONTAINS = new Set(['contains', 'minContains', 'maxContains']);

/**
 * ajv's `contains` on one array: it validates items in order and stops as soon as the outcome
 * is settled (the first match when only one is needed, one match too many), and when the
 * keyword fails it reports why each item it checked and that did not match failed, before its
 * own error. cfworker checks every item and keeps none of their errors. `null`: ajv passes.
 */
function containsAsAjv(items: unknown[], schema: unknown, node: Node, itemLocation: (j: number) => string, schemaLocation: string, compiled: Compiled, data: unknown): OutputUnit[] | null {
  const min = typeof node['minContains'] === 'number' ? node['minContains'] : 1;
  const max = typeof node['maxContains'] === 'number' ? node['maxContains'] : undefined;
  if (max === undefined && min === 0) return null;
  if (max !== undefined && min > max) return [];
  if (schema === true || (isRecord(schema) && Object.keys(schema).length === 0)) return items.length >= min && (max === undefined || items.length <= max) ? null : [];
  const units: OutputUnit[] = [];
  let count = 0;
  let valid = min === 0;
  if (min === 0 && items.length === 0) return null;
  for (let j = 0; j < items.length; j++) {
    const result = validate(items[j], schema as Schema, '2020-12', compiled.lookup, false, null, itemLocation(j), schemaLocation);
    if (!result.valid) {
      units.push(...withContainsItems(result.errors, compiled, data));
      continue;
    }
    count++;
    if (max === undefined) {
      if (count >= min) return null;
    } else if (count > max) {
      valid = false;
      break;
    } else if (count >= min) valid = true;
  }
  return valid ? null : units;
}

/**
 * cfworker's `contains` failures as ajv reports them (containsAsAjv): the item errors first,
 * then the keyword's own unit; nothing where ajv passes.
 */
function withContainsItems(units: OutputUnit[], compiled: Compiled, data: unknown): OutputUnit[] {
  // cfworker keeps some item errors of its own (too few matches): the ones ajv reports replace them.
  const failed = units.filter((u) => CONTAINS.has(u.keyword)).map((u) => ({ schema: `${u.keywordLocation.slice(0, u.keywordLocation.lastIndexOf('/'))}/contains/`, instance: `${u.instanceLocation}/` }));
  const out: OutputUnit[] = [];
  for (const unit of units) {
    if (failed.some((f) => unit.keywordLocation.startsWith(f.schema) && unit.instanceLocation.startsWith(f.instance))) continue;
    if (!CONTAINS.has(unit.keyword)) {
      out.push(unit);
      continue;
    }
    const parentLocation = unit.keywordLocation.slice(0, unit.keywordLocation.lastIndexOf('/'));
    const items = schemaAtData(data, unit.instanceLocation);
    const node = schemaAt(parentLocation, compiled);
    if (!Array.isArray(items) || !isRecord(node)) continue;
    const itemUnits = containsAsAjv(items, node['contains'], node, (j) => `${unit.instanceLocation}/${j}`, `${parentLocation}/contains`, compiled, data);
    if (itemUnits === null) continue;
    out.push(...itemUnits, unit);
  }
  return out;
}

/**
 * ajv stops evaluating a `oneOf` at its second matching branch (it fails then): drops the
 * errors cfworker found in the branches after it, which ajv never looked at.
 */
function oneOfAsAjv(units: OutputUnit[], compiled: Compiled): OutputUnit[] {
  let out = units;
  for (const unit of units) {
    if (unit.keyword !== 'oneOf' || unit.error.includes('(0 matches)')) continue;
    const branches = `${unit.keywordLocation}/`;
    const branchOf = (u: OutputUnit): number => (u.keywordLocation.startsWith(branches) ? Number(u.keywordLocation.slice(branches.length).split('/')[0]) : -1);
    const schema = schemaAt(unit.keywordLocation, compiled);
    const count = Array.isArray(schema) ? schema.length : 0;
    // Branches with no error under them matched; the second of those is where ajv stopped.
    const failing = new Set(out.map(branchOf));
    const stop = [...Array(count).keys()].filter((i) => !failing.has(i))[1];
    if (stop !== undefined) out = out.filter((u) => branchOf(u) <= stop);
  }
  return out;
}

const FALSE_REPORTED_BY_PARENT = new Set(['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'unevaluatedItems']);

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
    if (typeof node['$ref'] !== 'string') return;
    // A chain of `$ref`s that comes back to where it started never reaches a keyword: ajv's
    // compiler recurses until the stack overflows; say so at compile time as it does.
    const seen = new Set<unknown>([node]);
    for (let at: unknown = node; isRecord(at) && typeof at['$ref'] === 'string'; ) {
      at = resolveRef(at, compiled);
      if (at === undefined) throw new Error(`can't resolve reference ${String(node['$ref'])} from id #`);
      if (seen.has(at)) throw new RangeError('Maximum call stack size exceeded');
      seen.add(at);
    }
  });
}

// ajv-formats' checks of string formats ("full" mode, as the Node entry adds them to ajv), so a
// format means the same in every runtime; its numeric formats (int32, int64) apply to numbers,
// which cfworker never checks formats of.
const STRING_FORMATS: Record<string, (text: string) => boolean> = {};
for (const [name, definition] of Object.entries(fullFormats as Record<string, unknown>)) {
  const check = isRecord(definition) && !(definition instanceof RegExp) ? definition['validate'] : definition;
  if (isRecord(definition) && definition['type'] === 'number') continue;
  if (check instanceof RegExp) STRING_FORMATS[name] = (text) => check.test(text);
  else if (typeof check === 'function') STRING_FORMATS[name] = (text) => (check as (t: string) => boolean)(text);
  else if (check === true) STRING_FORMATS[name] = () => true;
}

/**
 * Runs `fn` with cfworker's format table holding ajv-formats' checks, and puts cfworker's back
 * after. cfworker reads formats from that one exported object; the swap lasts one synchronous
 * validation, so nothing else ever sees it.
 */
function withAjvFormats<T>(fn: () => T): T {
  const table = cfworkerFormats as Record<string, unknown>;
  const saved = { ...table };
  for (const key of Object.keys(table)) delete table[key];
  Object.assign(table, STRING_FORMATS);
  try {
    return fn();
  } finally {
    for (const key of Object.keys(table)) delete table[key];
    Object.assign(table, saved);
  }
}

/** The validator that needs no code generation (@cfworker/json-schema, messages as ajv's). */
export const interpretedBackend: JsonSchemaBackend = {
  name: 'interpreted',
  compile(schema: JsonSchema, _draft: JsonSchemaDraft) {
    // cfworker annotates the schema objects it is given: validate a copy. Draft 2020-12 for both
    // drafts, as ajv: keywords beside a `$ref` are evaluated too (cfworker's draft-07 mode
    // ignores them), and array-form `items` works in every draft there.
    const root = markFalse(JSON.parse(JSON.stringify(schema))) as Node;
    const compiled: Compiled = { root, lookup: dereference(root as Schema) };
    checkCompilable(compiled);
    return (value) => {
      // cfworker refuses `undefined` anywhere; as JSON (what tool arguments are) it is absent.
      const data: unknown = value === undefined ? null : JSON.parse(JSON.stringify(value));
      const result = withAjvFormats(() => validate(data, root as Schema, '2020-12', compiled.lookup, false));
      if (result.valid) return [];
      const units = withAjvFormats(() => withContainsItems(result.errors, compiled, data));
      const issues: { issue: SchemaIssue; key: number[] }[] = [];
      for (const unit of oneOfAsAjv(units, compiled)) {
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
