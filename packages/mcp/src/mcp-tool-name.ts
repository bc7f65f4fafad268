import { createHash } from 'node:crypto';

/** Tool names every provider accepts (OpenAI, Anthropic, DeepSeek, Gemini). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const UNSAFE_RUN = /[^a-zA-Z0-9_-]+/g;

/** Replaces every run of characters providers reject with one `_` (as nanobot does); empty becomes `unnamed`. */
export function sanitizeNamePart(part: string): string {
  return part.replace(UNSAFE_RUN, '_') || 'unnamed';
}

/**
 * The registry name of an MCP tool: `mcp_<server>_<tool>`, sanitised to `^[a-zA-Z0-9_-]{1,64}$`.
 * Names longer than 64 characters keep their first 55 characters plus `_` and 8 hex digits of a
 * hash of the unsanitised pair, so two long names that share a prefix stay distinct and a name is
 * the same on every run. Distinct pairs can still map to one name (`a.b`/`x` and `a_b`/`x`): the
 * source detects and reports those collisions.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp_${sanitizeNamePart(server)}_${sanitizeNamePart(tool)}`;
  if (name.length <= MAX_LENGTH) return name;
  const digest = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_LENGTH - 9)}_${digest}`;
}
