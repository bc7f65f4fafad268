export { ToolRegistry } from './tool-registry.js';
export type {
  ToolRegistryOptions,
  PreparedCall,
  PreparedCallOk,
  PreparedCallError,
  PrepareFailureReason,
  ToolExecution,
  ToolExecutionStatus,
  ExecuteOptions,
} from './tool-registry.js';
export {
  TOOL_ERROR_HINT,
  toolNotFoundMessage,
  notAnObjectMessage,
  invalidParametersMessage,
  executionErrorMessage,
  noOutputMessage,
} from './tool-error-messages.js';
export { suggestToolName, toolLookupKey } from './suggest-tool-name.js';
export { coerceToolArguments } from './coerce-tool-arguments.js';
export type { CoercedArguments, ArgumentRepairOptions } from './coerce-tool-arguments.js';
export { ToolLoader, PLUGIN_MANIFEST_FIELD } from './tool-loader.js';
export type { ToolLoaderOptions, LoadOptions, LoadReport, ToolModule } from './tool-loader.js';
export { withLegacyErrorPrefix } from './legacy-error-prefix.js';
