import { jsonrepair } from 'jsonrepair';

/** How {@link coerceToolArguments} treats argument text that is not valid JSON. */
export interface ArgumentRepairOptions {
  /** Try to repair malformed object text (unquoted keys, single quotes, trailing commas…). */
  repair: boolean;
  /** Longest text (UTF-16 units) a repair is attempted on. */
  maxRepairChars: number;
}

/** Result of {@link coerceToolArguments}. */
export interface CoercedArguments {
  /** The payload after coercion: usually an object, else whatever the model sent. */
  value: unknown;
  /** True when the payload (or the wrapped `arguments` value) was repaired. */
  repaired: boolean;
  /** Set when object-looking text could not be parsed nor repaired: why. */
  malformed: string | null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function coerceValue(raw: unknown, options: ArgumentRepairOptions): CoercedArguments {
  if (raw === null || raw === undefined) return { value: {}, repaired: false, malformed: null };
  if (typeof raw !== 'string') return { value: raw, repaired: false, malformed: null };
  const text = raw.trim();
  if (text === '') return { value: {}, repaired: false, malformed: null };
  // Only text that opens like JSON is parsed: "true", "null", a bare URL stay strings and are
  // rejected as non-objects rather than guessed at.
  if (!text.startsWith('{') && !text.startsWith('[')) return { value: raw, repaired: false, malformed: null };
  try {
    return { value: JSON.parse(text), repaired: false, malformed: null };
  } catch (err) {
    if (!options.repair || !text.startsWith('{')) return { value: raw, repaired: false, malformed: null };
    return repairObjectText(raw, text, (err as Error).message, options);
  }
}

function repairObjectText(raw: string, text: string, parseError: string, options: ArgumentRepairOptions): CoercedArguments {
  // A reply cut off mid-object would be "repaired" into a shorter, wrong call (a truncated
  // write_file body); only complete objects with syntax slips are repaired.
  if (!text.endsWith('}')) {
    return { value: raw, repaired: false, malformed: 'the text is incomplete: it does not end with "}"' };
  }
  if (text.length > options.maxRepairChars) {
    return { value: raw, repaired: false, malformed: `${parseError}; too long to repair` };
  }
  try {
    const repaired: unknown = JSON.parse(jsonrepair(text));
    if (isPlainObject(repaired)) return { value: repaired, repaired: true, malformed: null };
    return { value: raw, repaired: false, malformed: parseError };
  } catch {
    return { value: raw, repaired: false, malformed: parseError };
  }
}

/**
 * The reference's `_coerce_params` plus bounded repair: `null`/blank → `{}`; text opening with
 * `{`/`[` is parsed as JSON (other text is returned as is); an object whose only key is
 * `arguments` is unwrapped one level — unless the tool itself has an `arguments` parameter. With
 * repair on, object text with syntax slips is repaired; text that cannot be is reported in
 * `malformed`. Never mutates `raw`, never throws.
 */
export function coerceToolArguments(
  raw: unknown,
  schemaProperties: Readonly<Record<string, unknown>> | undefined,
  options: ArgumentRepairOptions,
): CoercedArguments {
  const first = coerceValue(raw, options);
  const value = first.value;
  if (
    isPlainObject(value) &&
    !(schemaProperties && Object.hasOwn(schemaProperties, 'arguments'))
  ) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'arguments') {
      const inner = coerceValue(value.arguments, options);
      return { value: inner.value, repaired: first.repaired || inner.repaired, malformed: inner.malformed };
    }
  }
  return first;
}
