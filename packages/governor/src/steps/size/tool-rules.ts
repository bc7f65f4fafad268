// Which size rules apply to a tool's results: from its declared traits (issue 29, item 3), or by
// the reference's name lists in `compat: 'reference'` (the conformance cases depend on them).
import { toolTraitsFor, type RereadableOutput, type ToolTraitsByName } from '@nanobot/schema';
import { COMPACTABLE_TOOLS, TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS } from '../../constants.js';

/**
 * What the size steps read to decide per tool: the mode and the declared traits. Plain data,
 * compared field by field (the traits table by identity: the registry hands out the same frozen
 * table until its tools change).
 */
export interface ToolResultRules {
  /** `compat: 'reference'`: the reference's name lists decide, traits are ignored. */
  readonly reference: boolean;
  /** Declared traits by tool name; absent names (or no table) have none. */
  readonly toolTraits: ToolTraitsByName | null;
}

/** The rules of the default mode without any declared traits: no tool is treated specially. */
export const NO_TRAITS_RULES: ToolResultRules = Object.freeze({ reference: false, toolTraits: null });

/** The reference's by-name rules. */
export const REFERENCE_RULES: ToolResultRules = Object.freeze({ reference: true, toolTraits: null });

/** Whether the rules are the same (the memos compare them). */
export function sameRules(a: ToolResultRules, b: ToolResultRules): boolean {
  return a.reference === b.reference && a.toolTraits === b.toolTraits;
}

/**
 * Reference only: `read_file` is never offloaded (reading is how an offloaded result comes back).
 * In the default mode nothing is exempt: a rereadable tool's result is cut with a continuation
 * hint instead (see {@link rereadableOf}), any other is offloaded or cut.
 */
export function isOffloadExempt(rules: ToolResultRules, name: unknown): boolean {
  return rules.reference && typeof name === 'string' && TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS.has(name);
}

/** Whether a result of `name` may be compacted under pressure: declared `compactable` (reference: the name list). */
export function isCompactable(rules: ToolResultRules, name: unknown): boolean {
  if (rules.reference) return typeof name === 'string' && COMPACTABLE_TOOLS.has(name);
  return toolTraitsFor(rules.toolTraits, name).compactable;
}

/** How `name` pages through its output when it declares `rereadable` (never in the reference mode). */
export function rereadableOf(rules: ToolResultRules, name: unknown): RereadableOutput | null {
  if (rules.reference) return null;
  return toolTraitsFor(rules.toolTraits, name).rereadable;
}

/** The rules of a govern call: by name with `compat: 'reference'`, else by `options.toolTraits`. */
export function toolResultRules(options: { compat?: 'fixed' | 'reference'; toolTraits?: ToolTraitsByName | null }): ToolResultRules {
  if (options.compat === 'reference') return REFERENCE_RULES;
  return options.toolTraits ? { reference: false, toolTraits: options.toolTraits } : NO_TRAITS_RULES;
}

/**
 * A lookup of the arguments of each tool call in `messages` (the raw `function.arguments`),
 * built on first use. Pure; the lookup never throws.
 */
export function callArgumentsLookup(messages: readonly { role?: unknown; tool_calls?: unknown }[]): (toolCallId: string) => unknown {
  let table: Map<string, unknown> | null = null;
  return (id) => {
    if (table === null) {
      table = new Map();
      for (const m of messages) {
        if (m === null || typeof m !== 'object' || m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
        for (const call of m.tool_calls as unknown[]) {
          if (call === null || typeof call !== 'object') continue;
          const c = call as { id?: unknown; function?: { arguments?: unknown } | null };
          if (typeof c.id === 'string' && !table.has(c.id)) table.set(c.id, c.function?.arguments ?? null);
        }
      }
    }
    return table.get(id) ?? null;
  };
}
