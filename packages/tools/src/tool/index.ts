/** What a built-in tool is here: its spec, call context and outcome, and `toTool` that turns a spec into a registry `Tool`. */
export { toTool } from './to-tool.js';
export type { BuiltinToolSpec, CallContext, Outcome, ToolScope } from './builtin-tool.js';
