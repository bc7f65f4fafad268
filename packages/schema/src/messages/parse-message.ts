import type { z } from 'zod';
import { ValidationError } from '../errors/errors.js';
import type { Message, MessageSchema } from './message.js';

function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

function findCycle(value: unknown, path: (string | number)[], onPath: Set<object>): (string | number)[] | null {
  if (typeof value !== 'object' || value === null) return null;
  if (onPath.has(value)) return path;
  onPath.add(value);
  try {
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      const found = findCycle(child, [...path, key], onPath);
      if (found) return found;
    }
    return null;
  } finally {
    onPath.delete(value);
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.message;
}

/** `parseMessage` and `parseMessages` bound to one message schema (each entry binds its own). */
export interface MessageParsers {
  /**
   * Validates one persisted message record (a session-file line, a provider reply converted to
   * our model) and returns it typed. Throws {@link ValidationError} whose `path` and message name
   * the offending field (`messages[3].tool_calls[0].id: …`); cyclic values are reported the same
   * way instead of overflowing the stack. Unknown extra keys (`timestamp`, `_meta`) are kept.
   * Never mutates `record`; `where` prefixes paths (e.g. `messages[3]`).
   */
  parseMessage(record: unknown, where?: (string | number)[]): Message;
  /** {@link MessageParsers.parseMessage} over a list; the error path starts with the index (`[3].role`). */
  parseMessages(records: unknown): Message[];
}

/** The parsers of records against `messageSchema`. Pure. */
export function messageParsers(messageSchema: MessageSchema): MessageParsers {
  function parseMessage(record: unknown, where: (string | number)[] = []): Message {
    const cycle = findCycle(record, [], new Set());
    if (cycle) {
      const path = [...where, ...cycle];
      throw new ValidationError(`${formatPath(path) || 'message'}: cyclic value (a message must be plain JSON)`, path, { code: 'CIRCULAR_VALUE' });
    }
    const parsed = messageSchema.safeParse(record);
    if (parsed.success) return parsed.data as Message;
    const issue = parsed.error.issues[0]!;
    const path = [...where, ...(issue.path as (string | number)[])];
    const others = parsed.error.issues.length - 1;
    const more = others > 0 ? ` (and ${others} more issue${others === 1 ? '' : 's'})` : '';
    throw new ValidationError(`${formatPath(path) || 'message'}: ${describeIssue(issue)}${more}`, path, { cause: parsed.error });
  }
  function parseMessages(records: unknown): Message[] {
    if (!Array.isArray(records)) {
      throw new ValidationError(`messages must be an array, got ${records === null ? 'null' : typeof records}`);
    }
    return records.map((record, i) => parseMessage(record, [i]));
  }
  return { parseMessage, parseMessages };
}
