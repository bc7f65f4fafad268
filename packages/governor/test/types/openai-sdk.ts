// Type test: the governor in front of the real openai SDK, under --strict with
// exactOptionalPropertyTypes. `ChatCompletionMessageParam[]` goes in, the same type comes out
// and goes straight into `chat.completions.create`: no casts anywhere. Compiled by
// `pnpm typecheck` (tsc -p test/types) and by readme-examples.test.ts; never run.
import type OpenAI from 'openai';
import {
  BudgetExceededError,
  checkLegality,
  govern,
  type GovernOptions,
  type GovernResult,
  type GovernTarget,
  type Message,
} from '@nanobot/governor';

type Param = OpenAI.Chat.ChatCompletionMessageParam;

export async function ask(client: OpenAI, stored: readonly Param[], tools: OpenAI.Chat.ChatCompletionTool[]): Promise<string | null> {
  const options: GovernOptions = { target: 'openai', contextWindowTokens: 128_000, maxOutputTokens: 4_096, tools };
  const result: GovernResult<Param> = govern(stored, options);
  const messages: Param[] = result.messages;
  if (checkLegality(messages, { target: 'openai' }).length > 0) return null;
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
  return completion.choices[0]?.message.content ?? null;
}

export function withDeveloper(): Param[] {
  const history: Param[] = [
    { role: 'developer', content: 'Answer briefly.' },
    { role: 'user', content: [{ type: 'text', text: 'What is in the logs?' }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'exec', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'app.log' },
  ];
  return govern(history, { onOverflow: 'throw' }).messages;
}

export function ourMessages(stored: Message[], target: GovernTarget): Message[] {
  try {
    return govern(stored, { target }).messages;
  } catch (error) {
    if (error instanceof BudgetExceededError) return stored.slice(-1);
    throw error;
  }
}

// The result type follows the input type: a Message[] result is not a Param[].
export function mismatch(stored: Message[]): void {
  // @ts-expect-error Message has an open role, ChatCompletionMessageParam does not
  const wrong: Param[] = govern(stored).messages;
  void wrong;
}
