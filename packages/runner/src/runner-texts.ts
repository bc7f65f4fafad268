// Model-visible and user-visible texts of the runner. The quoted ones are the reference's
// contract strings (runner.md §9 and §4), reproduced exactly so nanobot users see the same.

/** Appended to tool errors so the model changes approach. */
export const TOOL_ERROR_HINT = '\n\n[Analyze the error above and try a different approach.]';
/** Default text when the model errors without content. */
export const DEFAULT_ERROR_MESSAGE = 'Sorry, I encountered an error calling the AI model.';
/** Asked once (without tools) after two empty answers. */
export const FINALIZATION_RETRY_PROMPT = 'Please provide your response to the user based on the conversation above.';
/** Final text when every recovery still gives a blank answer. */
export const EMPTY_FINAL_RESPONSE_MESSAGE =
  "I completed the tool steps but couldn't produce a final answer. Please try again or narrow the task.";
/** Asked (without tools) when the iteration budget runs out. */
export const MAX_ITERATIONS_FINALIZE_PROMPT =
  'The tool-call budget for this turn is exhausted. Based only on the conversation and tool results above, provide a concise final response to the user. Do not call or request tools. Do not claim the task is complete unless the evidence above clearly shows it is complete. State what was done, what remains, and the best next step if anything is incomplete.';
/** Fallback when the max-iterations summary fails; `{max_iterations}` is replaced. */
export const DEFAULT_MAX_ITERATIONS_MESSAGE =
  'I reached the maximum number of tool call iterations ({max_iterations}) without completing the task. You can try breaking the task into smaller steps.';
/** First part of the length-recovery prompt. */
export const LENGTH_RECOVERY_PROMPT =
  'The previous assistant response was cut off. Continue the same response from its exact endpoint. Output only new continuation text in the same language and style. Do not acknowledge this instruction, restart the response, repeat its title or any existing text, recap, or apologize.';
/** Sent after a response whose every tool call was malformed. */
export const MALFORMED_TOOL_CALLS_PROMPT =
  'The previous model response attempted to call tools, but every tool call was malformed: the tool_use blocks had missing or non-string tool names. Do not answer with a promise to use tools. Either call the required tools again using valid tool names from the provided tool list and JSON object inputs, or give a final answer only if no tool is required.';
/** Shown when the provider reports an exhausted quota. */
export const ARREARAGE_MESSAGE =
  'The AI provider rejected the request because the API key is out of quota or the account is in arrears. Please top up / check the billing status of your API key and try again.';
/** Guidance appended to SSRF refusals. */
export const SSRF_NOTE =
  'This is a non-bypassable security boundary. Stop trying to access private/internal URLs. Do not retry with curl, wget, encoded IPs, alternate DNS, redirects, proxies, or another tool. Ask the user for local files, logs, screenshots, or an explicit safe public URL instead. If the user explicitly trusts this private URL, ask them to whitelist the exact IP/CIDR via tools.ssrfWhitelist.';
/**
 * The reference's result for a call that had not finished when the run was aborted. No longer
 * stored: an interrupted call is a `toolFailureRow` (@nanobot/schema) whose text is the neutral
 * `TOOL_INTERRUPTED_NOTE`; rows holding this text (older sessions) are read as that failure.
 * @deprecated Kept for reading old sessions; see `LEGACY_FAILURE_TEXTS` in @nanobot/schema.
 */
export const TOOL_INTERRUPTED_RESULT = 'Error: Task interrupted before this tool finished.';
/**
 * The reference's assistant reply for a turn interrupted before any answer. No longer stored: the
 * turn is closed by a `turnFailureRow('interrupted')` (@nanobot/schema); old rows with this text
 * are read as that failure.
 * @deprecated Kept for reading old sessions; see `LEGACY_FAILURE_TEXTS` in @nanobot/schema.
 */
export const TURN_INTERRUPTED_REPLY = 'Error: Task interrupted before a response was generated.';
/**
 * What earlier versions appended when the model errored without any text. No longer stored: a
 * failed request is a `turnFailureRow('model_error', detail)` (@nanobot/schema); old rows with
 * this text are read as that failure.
 * @deprecated Kept for reading old sessions; see `LEGACY_FAILURE_TEXTS` in @nanobot/schema.
 */
export const MODEL_ERROR_PLACEHOLDER = '[Previous assistant message omitted.]';

/** The escalated workspace refusal for the third and later attempt on one target. */
export function workspaceEscalationMessage(target: string, count: number): string {
  return (
    'Error: refusing repeated workspace-bypass attempts.\n' +
    `You have tried to access '${target}' (or an equivalent path) ${count} times in this turn. ` +
    'This is a hard policy boundary -- switching tools, shell tricks, working_dir overrides, symlinks, or base64 piping will NOT change the answer. ' +
    'Stop retrying. If the user genuinely needs this resource, tell them you cannot access it and ask how they want to proceed ' +
    '(e.g. copy the file into the workspace, or disable restrict_to_workspace for this run).'
  );
}

/** The length-recovery user message quoting the already delivered tail. */
export function lengthRecoveryMessage(tail: string): string {
  return (
    LENGTH_RECOVERY_PROMPT +
    '\n\n' +
    'The following tail was already delivered to the user. Treat it as immutable context and do not output it again:\n' +
    '<already_delivered_tail>\n' +
    tail +
    '\n</already_delivered_tail>\n' +
    'Begin with the text that belongs immediately after this tail.'
  );
}

/** The reference's cron reminder: what the agent is told when a scheduled job fires. */
export function cronReminder(message: string): string {
  return (
    'The scheduled time has arrived. Execute this scheduled cron job now and report the result to the user in the same session.\n\n' +
    'Rules:\n- Speak directly to the user in their language.\n- Do not narrate internal progress.\n- Do not include user IDs.\n' +
    '- Do not add status reports like "Done" or "Reminded" unless they are the natural response.\n\n' +
    `Cron job: ${message}`
  );
}
