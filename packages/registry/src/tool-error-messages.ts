// The strings the model reads when a call goes wrong. Every one marked "reference" is the
// reference's exact text (model-visible contract); the others are ours and documented in README.

/** Appended to every error result (reference, exact). */
export const TOOL_ERROR_HINT = '\n\n[Analyze the error above and try a different approach.]';

/** Unknown tool (reference). `available` is registration order. */
export function toolNotFoundMessage(name: string, suggestion: string | null, available: readonly string[]): string {
  const hint = suggestion === null ? '' : ` Did you mean '${suggestion}'? Tool names must match exactly.`;
  return `Error: Tool '${name}' not found.${hint} Available: ${available.join(', ')}`;
}

/** Arguments that are not a JSON object (reference); `typeName` is the Python type name. */
export function notAnObjectMessage(name: string, typeName: string): string {
  return (
    `Error: Tool '${name}' parameters must be a JSON object, got ${typeName}. ` +
    'Use named parameters like tool_name(param1="value1", param2="value2") matching the tool schema.'
  );
}

/** Schema violations (reference): the validator's messages joined by `; `. */
export function invalidParametersMessage(name: string, errors: readonly string[]): string {
  return `Error: Invalid parameters for tool '${name}': ${errors.join('; ')}`;
}

/** Argument text that looked like a JSON object but could not be parsed or repaired (ours). */
export function malformedArgumentsMessage(name: string, reason: string, schemaJson: string): string {
  return (
    `Error: Tool '${name}' arguments are not valid JSON (${reason}). ` +
    `Send the arguments as one complete JSON object matching this schema: ${schemaJson}`
  );
}

/** A tool that threw (reference): `Error executing <name>: <message>`. */
export function executionErrorMessage(name: string, message: string): string {
  return `Error executing ${name}: ${message}`;
}

/** A tool that did not finish within its time limit (ours, same form as a thrown error). */
export function timeoutMessage(name: string, timeoutMs: number): string {
  const limit =
    timeoutMs % 1000 === 0
      ? `${timeoutMs / 1000} seconds`
      : timeoutMs >= 1000
        ? `${(timeoutMs / 1000).toFixed(1)} seconds`
        : `${timeoutMs} ms`;
  return executionErrorMessage(name, `the tool did not finish within ${limit} and was stopped`);
}

/** A call cancelled by the caller's abort signal (ours). */
export function cancelledMessage(name: string): string {
  return executionErrorMessage(name, 'the call was cancelled');
}

/** What the model reads for a tool that produced nothing (the reference's runner text). */
export function noOutputMessage(name: string): string {
  return `(${name} completed with no output)`;
}
