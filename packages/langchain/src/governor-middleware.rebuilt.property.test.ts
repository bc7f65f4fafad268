import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { GovernOptions, GovernReport } from '@nanobot/governor';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { governorMiddleware } from './governor-middleware.js';
import { damagedHistory, validHistory } from './test-support/arbitrary-base-messages.js';

/** Every field a model (and a store) sees of a message. */
function fields(m: BaseMessage): Record<string, unknown> {
  const r = m as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { class: m.constructor.name, type: m.type, content: m.content };
  for (const k of ['id', 'name', 'additional_kwargs', 'response_metadata', 'tool_calls', 'invalid_tool_calls', 'usage_metadata', 'tool_call_id', 'status', 'artifact', 'metadata']) {
    if (r[k] !== undefined) out[k] = r[k];
  }
  return out;
}

const CLASSES: Record<string, new (fields: never) => BaseMessage> = {
  human: HumanMessage as never, ai: AIMessage as never, system: SystemMessage as never, tool: ToolMessage as never,
};

type Change = 'none' | 'content' | 'block' | 'id' | 'name' | 'additional_kwargs' | 'response_metadata' | 'usage_metadata' | 'tool_call_id' | 'tool_args' | 'tool_call_name' | 'status' | 'artifact' | 'type';

/** A deep copy of `m` as a new message of its class (as a checkpointer reload gives it), with `change` made. */
function rebuilt(m: BaseMessage, change: Change): BaseMessage {
  const f = structuredClone(fields(m));
  delete f.class;
  let type = f.type as string;
  delete f.type;
  if (type === 'ai' && Array.isArray(f.tool_calls) && f.tool_calls.length === 0) delete f.tool_calls;
  switch (change) {
    case 'content':
      f.content = typeof f.content === 'string' ? `${f.content} more` : [...(f.content as unknown[]), { type: 'text', text: 'more' }];
      break;
    case 'block':
      if (Array.isArray(f.content) && f.content.length > 0) f.content = [{ ...(f.content[0] as object), extra: 1 }, ...f.content.slice(1)];
      else f.content = [{ type: 'text', text: String(f.content) }];
      break;
    case 'id':
      f.id = 'changed-id';
      break;
    case 'name':
      f.name = 'changed_name';
      break;
    case 'additional_kwargs':
    case 'response_metadata':
      f[change] = { ...(f[change] as object), changed: true };
      break;
    case 'usage_metadata':
      if (type === 'ai') f.usage_metadata = { input_tokens: 3, output_tokens: 4, total_tokens: 7 };
      break;
    case 'tool_call_id':
      if (type === 'tool') f.tool_call_id = 'call_changed';
      break;
    case 'tool_args':
    case 'tool_call_name': {
      const calls = f.tool_calls as Record<string, unknown>[] | undefined;
      if (calls !== undefined && calls.length > 0) calls[0] = change === 'tool_args' ? { ...calls[0], args: { changed: [1, 2] } } : { ...calls[0], name: 'renamed' };
      break;
    }
    case 'status':
      if (type === 'tool') f.status = f.status === 'error' ? 'success' : 'error';
      break;
    case 'artifact':
      if (type === 'tool') f.artifact = { rows: [1, 2, 3] };
      break;
    case 'type':
      if (type === 'human') type = 'system';
      else if (type === 'system') type = 'human';
      break;
    case 'none':
      break;
  }
  return new CLASSES[type](f as never);
}

const change = fc.constantFrom<Change>('none', 'content', 'block', 'id', 'name', 'additional_kwargs', 'response_metadata', 'usage_metadata', 'tool_call_id', 'tool_args', 'tool_call_name', 'status', 'artifact', 'type');

interface Seen {
  messages: BaseMessage[];
  systemMessage: BaseMessage | undefined;
  report: GovernReport | undefined;
}

/** One model call through the middleware's hook: what the model gets, and the report. */
async function call(mw: ReturnType<typeof governorMiddleware>, history: readonly BaseMessage[], reports: GovernReport[]): Promise<Seen> {
  const hasSystem = history[0]?.type === 'system';
  const request = { messages: hasSystem ? history.slice(1) : [...history], systemMessage: hasSystem ? history[0] : new SystemMessage(''), tools: [] };
  let seen: Seen | undefined;
  const handler = (r: { messages: BaseMessage[]; systemMessage?: BaseMessage }) => {
    seen = { messages: r.messages, systemMessage: r.systemMessage, report: reports[reports.length - 1] };
    return new AIMessage('ok');
  };
  await (mw.wrapModelCall as unknown as (r: unknown, h: typeof handler) => Promise<unknown>)(request, handler);
  return seen!;
}

const optionSets: GovernOptions[] = [{}, { maxToolResultChars: 12 }];

describe('governorMiddleware on rebuilt messages', () => {
  it('a history governed, then rebuilt with one field changed anywhere, gives what a fresh middleware gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(validHistory, damagedHistory),
        fc.array(fc.tuple(fc.nat(), change), { minLength: 1, maxLength: 2 }),
        fc.constantFrom(...optionSets.keys()),
        async (history, changes, o) => {
          const options = optionSets[o];
          const reports: GovernReport[] = [];
          const mw = governorMiddleware({ ...options, onReport: (r) => reports.push(r) });
          await call(mw, history, reports);
          // The same history rebuilt twice (a reload each time), the second with a change.
          await call(mw, history.map((m) => rebuilt(m, 'none')), reports);
          const at = new Map(changes.map(([n, c]) => [n % history.length, c]));
          const next = history.map((m, i) => rebuilt(m, at.get(i) ?? 'none'));
          const got = await call(mw, next, reports);

          const freshReports: GovernReport[] = [];
          const fresh = governorMiddleware({ ...options, onReport: (r) => freshReports.push(r) });
          const want = await call(fresh, next.map((m) => rebuilt(m, 'none')), freshReports);

          expect(got.messages.map(fields)).toEqual(want.messages.map(fields));
          expect(got.systemMessage === undefined ? undefined : fields(got.systemMessage)).toEqual(want.systemMessage === undefined ? undefined : fields(want.systemMessage));
          expect(got.report).toEqual(want.report);
          // Untouched messages are the caller's own (new) objects, never the earlier ones.
          const inputs = new Set(history);
          for (const m of got.messages) expect(inputs.has(m)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
