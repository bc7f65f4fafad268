import { defineTool, toolResult, type Tool } from '@nanobot/tools-core';
import type { BuiltinToolSpec, CallContext } from './builtin-tool.js';

/**
 * Wraps a built-in's spec as a tools-core `Tool`. Ordinary failures become error results; a
 * workspace or SSRF refusal is thrown as its typed error (`WorkspaceViolationError`,
 * `SsrfBlockedError`, stable `code`) because tools-core results are frozen text: the runner
 * recognises the type and adds its boundary note and throttling, and the registry still turns
 * it into text for callers without a runner.
 */
export function toTool<A>(spec: BuiltinToolSpec<A>, extra: { timeoutMs?: number } = {}): Tool<A> {
  return defineTool<A>({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    readOnly: spec.readOnly,
    exclusive: spec.exclusive,
    ...(spec.compactable !== undefined ? { compactable: spec.compactable } : {}),
    ...(spec.rereadable !== undefined ? { rereadable: spec.rereadable } : {}),
    scopes: spec.scopes,
    ...(extra.timeoutMs !== undefined ? { timeoutMs: extra.timeoutMs } : {}),
    async execute(args, ctx) {
      const outcome = await spec.run(args, ctx as CallContext);
      if (outcome.violation) throw outcome.violation;
      if (outcome.blocks) return toolResult.of(outcome.blocks, outcome.isError);
      return outcome.isError ? toolResult.error(outcome.text) : toolResult.text(outcome.text);
    },
  });
}
