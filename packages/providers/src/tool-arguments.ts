import { jsonrepair } from 'jsonrepair';
import { parsePythonJson, pythonJsonDumps } from '@nanobot/schema';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Arguments of a tool call that is about to run, parsed strictly: `null`/blank → `{}`, valid JSON →
 * its value (objects, but also arrays and scalars), anything unparseable → the original string.
 * No repair on purpose: the registry rejects a non-object so the model sees the error and retries,
 * instead of running a tool on arguments we guessed.
 */
export function parseToolArguments(raw: unknown): unknown {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = parsePythonJson(text);
  } catch {
    return raw;
  }
  // A JSON `null` would read as "no arguments"; keep the text so the registry reports it.
  return parsed === null ? raw : parsed;
}

/**
 * Arguments of a call in replayed history, as an object: strict parse, then `jsonrepair`, then
 * `{}`. Only for re-sending history (the API demands an object); never for execution.
 */
export function toolArgumentsObjectForReplay(raw: unknown): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (isPlainObject(raw)) return raw;
  if (typeof raw !== 'string') return {};
  const text = raw.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = parsePythonJson(text);
  } catch {
    try {
      parsed = JSON.parse(jsonrepair(text));
    } catch {
      return {};
    }
  }
  return isPlainObject(parsed) ? parsed : {};
}

/** `toolArgumentsObjectForReplay` serialised with Python's JSON spelling (`{"a": 1}`). */
export function toolArgumentsJsonForReplay(raw: unknown): string {
  return pythonJsonDumps(toolArgumentsObjectForReplay(raw));
}
