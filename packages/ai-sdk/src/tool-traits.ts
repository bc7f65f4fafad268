// How an AI SDK user declares a tool's traits (tools-core's "Traits": readOnly, compactable,
// rereadable) so that the governor treats it by its declaration, not its name: a `nanobot` entry
// in the tool's `providerOptions`. The SDK passes a function tool's `providerOptions` into every
// call's options (`params.tools[i].providerOptions`), where a middleware reads it; providers read
// only their own namespace, so the entry never reaches a model API.
import { resolveToolTraits, toolTraitsTable, type JsonSchema, type ToolTraitsByName, type ToolTraitsDeclaration } from '@nanobot/schema';

/** The `providerOptions` namespace nanobot reads on an AI SDK tool. */
export const NANOBOT_PROVIDER_OPTIONS_KEY = 'nanobot';

/** What {@link nanobotToolTraits} returns: a `providerOptions` value (JSON only, as the SDK requires). */
export type NanobotToolProviderOptions = { nanobot: { readOnly?: boolean; compactable?: boolean; rereadable?: boolean | { offsetParam?: string; limitParam?: string; unit?: 'lines' | 'characters'; firstOffset?: 0 | 1 } } };

/**
 * `providerOptions` for an AI SDK `tool({ … })` declaring its traits:
 * `tool({ description, inputSchema, execute, providerOptions: nanobotToolTraits({ compactable: true }) })`.
 * Spread it next to other providers' options. Checked now: throws `ConfigurationError` for a
 * declaration that cannot work (see `resolveToolTraits` in @nanobot/schema); returns a new object.
 */
export function nanobotToolTraits(traits: ToolTraitsDeclaration): NanobotToolProviderOptions {
  resolveToolTraits(traits);
  const { readOnly, compactable, rereadable } = traits;
  const entry: NanobotToolProviderOptions['nanobot'] = {};
  if (readOnly !== undefined) entry.readOnly = readOnly;
  if (compactable !== undefined) entry.compactable = compactable;
  if (rereadable !== undefined && rereadable !== null) entry.rereadable = typeof rereadable === 'boolean' ? rereadable : { ...rereadable };
  return { nanobot: entry };
}

/** A tool as the SDK hands it to a middleware (`params.tools[i]`) or as a `ToolSet` entry. */
interface ToolLike {
  type?: string;
  name?: string;
  inputSchema?: unknown;
  providerOptions?: Record<string, unknown> | undefined;
}

const isJsonSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { properties?: unknown }).properties === 'object';

/**
 * The declared traits of AI SDK tools by name, for the governor's `toolTraits`: from a call's
 * `params.tools` (in a middleware; function tools only, a declared `rereadable` checked against
 * the tool's JSON Schema) or from a `ToolSet` (`{ name: tool(…) }`). A tool without a `nanobot`
 * entry has no traits, whatever its name. Throws `ConfigurationError` for an unusable entry.
 */
export function aiSdkToolTraits(tools: readonly ToolLike[] | Readonly<Record<string, ToolLike>> | undefined | null): ToolTraitsByName {
  if (!tools) return toolTraitsTable([]);
  const entries: [string, ToolLike][] = Array.isArray(tools)
    ? (tools as readonly ToolLike[]).filter((t) => (t.type === undefined || t.type === 'function') && typeof t.name === 'string').map((t) => [t.name as string, t])
    : Object.entries(tools as Readonly<Record<string, ToolLike>>);
  const table: [string, ToolTraitsDeclaration][] = [];
  for (const [name, tool] of entries) {
    const declared = tool?.providerOptions?.[NANOBOT_PROVIDER_OPTIONS_KEY];
    if (declared === undefined) continue;
    const parameters = isJsonSchema(tool.inputSchema) ? tool.inputSchema : undefined;
    table.push([name, resolveToolTraits(declared as ToolTraitsDeclaration, { toolName: name, parameters })]);
  }
  return toolTraitsTable(table);
}
