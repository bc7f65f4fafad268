import { pythonStr, type Message, type ToolCall } from '@nanobot/schema';
import { callId, resultId, toolCallList } from '../../internal/tool-calls.js';
import type { ReportedToolResult } from '../../report/govern-report.js';
import { defineStep } from '../step.js';

function collectIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const msg of messages) {
    for (const call of toolCallList(msg)) {
      const raw = (call as { id?: unknown } | null)?.id;
      if (raw !== undefined && raw !== null) ids.add(pythonStr(raw));
    }
    const rid = (msg as { tool_call_id?: unknown }).tool_call_id;
    if (rid !== undefined && rid !== null) ids.add(pythonStr(rid));
  }
  return ids;
}

// Fast path for the common case (every call has a unique id): one Set, no copies.
function needsRepair(messages: readonly Message[]): boolean {
  const seen = new Set<string>();
  for (const msg of messages) {
    if (msg.role === 'tool') {
      const rid = (msg as { tool_call_id?: unknown }).tool_call_id;
      if (rid !== undefined && rid !== null && typeof rid !== 'string') return true;
      continue;
    }
    if (msg.role !== 'assistant') continue;
    for (const call of toolCallList(msg)) {
      if (call === null || typeof call !== 'object' || Array.isArray(call)) continue;
      const id = callId(call);
      // Non-string ids (ints from some gateways) are rewritten as strings, as providers require.
      if (id === null || seen.has(id) || (call as { id?: unknown }).id !== id) return true;
      seen.add(id);
    }
  }
  return false;
}

interface Declaration {
  assigned: string[];
  next: number;
}

/**
 * Gives every tool call in the model copy an id of its own (not in the reference: its
 * governor drops the second result of a reused id and leaves that call unanswered).
 *
 * - A call whose id repeats an earlier call's id (providers that restart numbering, short
 *   9-character ids) gets a fresh id (`<id>__2`, `<id>__3`, …), and the results that follow it
 *   are re-pointed at the new id, in order, so each call/result pair stays intact.
 * - A call without an id gets a fresh one (`call_missing_<n>`), so it can be answered.
 * - A non-string id (e.g. `7`) becomes its string (`"7"`), as providers require.
 * - A result is attributed to the latest assistant turn that declared its id; once that
 *   turn's calls with this id are answered, further results with the id are re-pointed at its
 *   last call so {@link dropOrphanToolResults} removes them as duplicates.
 *
 * Pure: the same array when no id needs changing; untouched messages are the input objects.
 */
export function repairToolCallIds(messages: readonly Message[]): Message[] {
  if (!needsRepair(messages)) return messages as Message[];
  let taken: Set<string> | null = null;
  const seen = new Set<string>();
  const current = new Map<string, Declaration>();
  let out: Message[] | null = null;
  let missingCounter = 0;

  const fresh = (base: string): string => {
    taken ??= collectIds(messages);
    let k = 2;
    let id = `${base}__${k}`;
    while (taken.has(id) || seen.has(id)) id = `${base}__${++k}`;
    taken.add(id);
    return id;
  };
  const freshMissing = (): string => {
    taken ??= collectIds(messages);
    let id = `call_missing_${++missingCounter}`;
    while (taken.has(id) || seen.has(id)) id = `call_missing_${++missingCounter}`;
    taken.add(id);
    return id;
  };

  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    let replacement: Message | null = null;
    if (msg.role === 'assistant') {
      const calls = toolCallList(msg);
      let newCalls: unknown[] | null = null;
      const declaredHere = new Map<string, Declaration>();
      calls.forEach((call, j) => {
        if (call === null || typeof call !== 'object' || Array.isArray(call)) return;
        const original = callId(call);
        let assigned = original;
        if (original === null) assigned = freshMissing();
        else if (seen.has(original)) assigned = fresh(original);
        seen.add(assigned!);
        if (original !== null) {
          const decl = declaredHere.get(original) ?? { assigned: [], next: 0 };
          decl.assigned.push(assigned!);
          declaredHere.set(original, decl);
        }
        const rawId = (call as { id?: unknown }).id;
        if (assigned !== rawId) {
          newCalls ??= calls.slice();
          newCalls[j] = { ...(call as object), id: assigned };
        }
      });
      for (const [original, decl] of declaredHere) current.set(original, decl);
      if (newCalls !== null) replacement = { ...msg, tool_calls: newCalls as ToolCall[] };
    } else if (msg.role === 'tool') {
      const rid = resultId(msg);
      const decl = rid === null ? undefined : current.get(rid);
      if (decl !== undefined) {
        const target = decl.next < decl.assigned.length ? decl.assigned[decl.next++] : decl.assigned[decl.assigned.length - 1];
        if (target !== (msg as { tool_call_id?: unknown }).tool_call_id) {
          replacement = { ...msg, tool_call_id: target };
        }
      }
    }
    if (replacement !== null) {
      out ??= messages.slice(0, i);
      out.push(replacement);
    } else {
      out?.push(msg);
    }
  }
  return out ?? (messages as Message[]);
}

/** Results re-pointed at a renamed call, for the report. */
function renamedResults(before: readonly Message[], after: readonly Message[]): ReportedToolResult[] {
  if (before === after) return [];
  const out: ReportedToolResult[] = [];
  for (let i = 0; i < after.length; i++) {
    const a = after[i];
    const b = before[i];
    if (a === b || a.role !== 'tool') continue;
    out.push({ toolCallId: String(a.tool_call_id), name: typeof a.name === 'string' ? a.name : 'tool', action: 'renamed', from: resultId(b) ?? '' });
  }
  return out;
}

/** The step (fixed mode): unique ids for every call, results re-pointed. */
export const repairToolCallIdsStep = defineStep({
  name: 'repairToolCallIds',
  may: ['rewrite'],
  noopOnClean: true,
  keepsClean: true,
  runs: (ctx) => ctx.fixed,
  run: (list) => {
    const messages = repairToolCallIds(list);
    return { messages, toolResults: renamedResults(list, messages) };
  },
});
