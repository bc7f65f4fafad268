// A user's program on the peer libraries themselves, compiled by scripts/pack-smoke.mjs against
// the packed tarballs in two projects: one with `openai` 6 and `ai` 6 (`@ai-sdk/openai` 3), one
// with `openai` 7 and `ai` 7 (`@ai-sdk/openai` 4, Node 22). Each project builds it as CommonJS
// (module node16, nodenext, commonjs) and as an ES module (nodenext, bundler); both builds run
// and must print the same line, and the two projects must print the same line too: the same
// history reaches the wire governed the same way whatever the majors.
// It talks to a local OpenAI-style server on 127.0.0.1 that it starts itself (no network).
// `ai` 7 and `@ai-sdk/openai` 4 ship ES modules only: they are loaded with `import()`, which a
// CommonJS build keeps, so neither build needs Node's require(esm).
// Usage (after compiling): node majors-consumer.js
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { governorMiddleware, governModelMessages } from '@nanobot/ai-sdk';
import { govern, type Message } from '@nanobot/governor';
import { OpenAICompatProvider } from '@nanobot/providers/openai';

// `ai`'s own ModelMessage, through our declarations (a CommonJS file cannot name an ESM-only
// package's types directly under every `module` setting).
type ModelMessage = Parameters<typeof governModelMessages>[0][number];

const sha = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** What a chat-completions request carried: its messages, and whether every call is answered. */
interface Seen {
  messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[];
}

function completion(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text, refusal: null } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }));
}

/** Answers calls, and refuses (400, as OpenAI does) a result whose call is not right before it. */
function orphanFree(seen: Seen): boolean {
  const open = new Set<string>();
  for (const m of seen.messages) {
    if (m.role === 'tool') {
      if (!open.delete(String(m.tool_call_id))) return false;
    } else {
      if (open.size > 0) return false;
      for (const c of m.tool_calls ?? []) open.add(c.id);
    }
  }
  return open.size === 0;
}

async function main(): Promise<void> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Seen;
      seen.push(parsed);
      if (!orphanFree(parsed)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: "messages with role 'tool' must be a response to a preceding message with 'tool_calls'", type: 'invalid_request_error' } }));
        return;
      }
      completion(res, `reply ${seen.length}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    // 1. The openai SDK itself, with a history the governor made legal.
    const stored: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is in the logs?' },
      { role: 'tool', tool_call_id: 'gone', content: 'orphaned output' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'exec', arguments: '{"command":"cat app.log"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'line\n'.repeat(5_000) },
      { role: 'user', content: 'Summarise it.' },
    ];
    const client = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    const governed = govern(stored, { target: 'openai', maxToolResultChars: 1_000 });
    const sdk = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: governed.messages });

    // 2. @nanobot/providers' OpenAI backend on the same server (it loads the installed openai).
    const provider = new OpenAICompatProvider({ apiKey: 'k', baseUrl: baseURL, model: 'gpt-4o-mini' });
    const viaProvider = await provider.chat({ messages: governed.messages as Message[] });

    // 3. The AI SDK: raw, the server refuses the history; through governorMiddleware it passes.
    const { generateText, wrapLanguageModel } = await import('ai');
    const { createOpenAI } = await import('@ai-sdk/openai');
    const history: ModelMessage[] = [
      { role: 'user', content: 'What is in the logs?' },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'gone', toolName: 'exec', output: { type: 'text', value: 'orphaned output' } }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'exec', input: { command: 'cat app.log' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'exec', output: { type: 'text', value: 'line\n'.repeat(5_000) } }] },
      { role: 'user', content: 'Summarise it.' },
    ];
    const model = createOpenAI({ apiKey: 'k', baseURL }).chat('gpt-4o-mini');
    const raw = await generateText({ model, messages: history, maxRetries: 0 }).then(() => 'accepted', () => 'refused');
    const reports: string[][] = [];
    const wrapped = wrapLanguageModel({ model, middleware: governorMiddleware({ maxToolResultChars: 1_000, onReport: (r) => reports.push(r.steps.filter((s) => s.changed).map((s) => s.step)) }) });
    const viaMiddleware = await generateText({ model: wrapped, messages: history, maxRetries: 0 });
    const before = governModelMessages(history, { maxToolResultChars: 1_000 });
    const viaGoverned = await generateText({ model, messages: before.messages, maxRetries: 0 });

    const line = {
      sdk: { reply: sdk.choices[0]?.message.content, sent: sha(seen[0]?.messages) },
      provider: { reply: viaProvider.content, sent: sha(seen[1]?.messages), sameAsSdk: JSON.stringify(seen[1]?.messages) === JSON.stringify(seen[0]?.messages) },
      ai: {
        raw,
        middleware: { reply: viaMiddleware.text, sent: sha(seen[3]?.messages), messages: seen[3]?.messages.length, changed: reports },
        governModelMessages: { reply: viaGoverned.text, sent: sha(seen[4]?.messages), sameAsMiddleware: JSON.stringify(seen[4]?.messages) === JSON.stringify(seen[3]?.messages) },
      },
      requests: seen.length,
    };
    console.log(JSON.stringify(line));
  } finally {
    server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
