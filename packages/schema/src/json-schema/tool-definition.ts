/** A JSON Schema object (draft 2020-12 subset as models accept it). */
export type JsonSchema = { [key: string]: unknown };

/** A tool as sent to the model: the OpenAI function-tool shape. */
export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: JsonSchema;
  };
}
