// Structural types for OpenAI Responses API input items, compatible with the `openai` SDK types
// (`ResponseInputItem`, `FunctionTool`) without depending on the SDK: the SDK's values are
// assignable to these, and `governResponses` returns the caller's own element type.

/** Any input item: only `type` (and, for messages, `role`) is read; unknown items pass through. */
export interface ResponsesItemLike {
  readonly type?: string | null | undefined;
}

/** A message item (`EasyInputMessage`, `ResponseInputItem.Message`, `ResponseOutputMessage`). */
export interface ResponsesMessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | readonly ResponsesContentPart[];
  id?: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A content part: `input_text`, `output_text`, `refusal`, `input_image`, `input_file`, … */
export interface ResponsesContentPart {
  readonly type: string;
  readonly text?: string;
}

/** A `function_call` item (`ResponseFunctionToolCall`). */
export interface ResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

/** A `function_call_output` item (`ResponseInputItem.FunctionCallOutput`). */
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | readonly ResponsesContentPart[];
  id?: string | null;
}

/** A `reasoning` item (`ResponseReasoningItem`); sent back with the item it precedes. */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: readonly { type: 'summary_text'; text: string }[];
  encrypted_content?: string | null;
}

/** A tool of the request (`Tool`): function tools have `name` and `parameters`. */
export interface ResponsesToolLike {
  readonly type: string;
  readonly name?: unknown;
  readonly description?: unknown;
  readonly parameters?: unknown;
}
