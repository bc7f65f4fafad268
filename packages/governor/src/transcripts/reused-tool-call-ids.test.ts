// Tool-call ids reused by the model, as recorded: gpt-4o in tau-bench reused ids across turns,
// and the SWE-agent demonstration uses one id for four calls. The reference treats a later call
// with an already-answered id as answered and drops its result, leaving that call unanswered
// (an illegal request). Our deviation: repairToolCallIds gives each repeat a fresh id
// (`<id>__2`, …) and re-points its result, so every recorded call/result pair stays intact.
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from '../check-legality.js';
import { emptyResultMessage } from '../constants.js';
import { enforceRoleAlternation } from '../steps/target/enforce-role-alternation.js';
import { govern } from '../govern.js';
import { repairToolCallIds } from '../steps/repair/repair-tool-call-ids.js';
import { SUITE_BUDGETS, budgetOptions, loadTranscript, manifestEntry } from '../test-support/node/transcripts.js';

const FILES = [
  'sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json',
  'sierra-research-tau-bench__gpt-4o-airline-task46-trial3.json',
  'SWE-agent-SWE-agent__marshmallow-1867-function-calling-demo.json',
];

interface Pair {
  callId: string;
  resultId: string | null;
  name: string;
  arguments: string;
  result: unknown;
}

/** Each call with the result that answers it in the tool run right after its turn (first unused match). */
function pairs(messages: readonly Message[]): Pair[] {
  const out: Pair[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const run: Message[] = [];
    for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) run.push(messages[j]);
    const used = new Set<Message>();
    for (const call of m.tool_calls) {
      const result = run.find((r) => !used.has(r) && r.tool_call_id === call.id);
      if (result) used.add(result);
      out.push({ callId: call.id, resultId: result ? String(result.tool_call_id) : null, name: call.function.name, arguments: call.function.arguments, result: result?.content });
    }
  }
  return out;
}

const withoutIds = (list: Pair[]) => list.map(({ name, arguments: args, result }) => ({ name, arguments: args, result }));

describe.each(FILES)('reused tool-call ids in %s', (file) => {
  const duplicates = () => manifestEntry(file).stats.defect_examples.duplicate_tool_call_id as string[];
  const extraDeclarations = () => manifestEntry(file).stats.defect_counts.duplicate_tool_call_id;

  it('the recording reuses ids: the raw history is illegal', () => {
    const raw = loadTranscript(file);
    const reused = checkLegality(raw).filter((v) => v.rule === 'duplicate-tool-call-id');
    expect(reused).toHaveLength(extraDeclarations());
    for (const id of duplicates()) expect(reused.some((v) => v.message.includes(id))).toBe(true);
  });

  it('repairToolCallIds renames each repeat and re-points its result: every recorded pair stays intact', () => {
    const raw = loadTranscript(file);
    const snapshot = JSON.stringify(raw);
    const repaired = repairToolCallIds(raw);
    expect(JSON.stringify(raw)).toBe(snapshot);
    expect(repaired).toHaveLength(raw.length);

    const before = pairs(raw);
    const after = pairs(repaired);
    // Every call is still answered by the very result recorded for it.
    expect(after.every((p) => p.resultId === p.callId)).toBe(true);
    expect(withoutIds(after)).toEqual(withoutIds(before));
    // Ids are unique now; first uses keep their id, repeats get `<id>__<n>`.
    const ids = after.map((p) => p.callId);
    expect(new Set(ids).size).toBe(ids.length);
    const renamed = after.filter((p, k) => p.callId !== before[k].callId);
    expect(renamed).toHaveLength(extraDeclarations());
    renamed.forEach((p) => {
      const k = after.indexOf(p);
      expect(p.callId).toMatch(new RegExp(`^${before[k].callId}__\\d+$`));
      expect(duplicates()).toContain(before[k].callId);
    });
    // Messages without a reused id are the input objects.
    repaired.forEach((m, i) => {
      const touched = (m.tool_calls ?? []).some((c) => /__\d+$/.test(c.id)) || /__\d+$/.test(String(m.tool_call_id ?? ''));
      if (!touched) expect(m).toBe(raw[i]);
    });
  });

  it.each(SUITE_BUDGETS)('govern at budget $label keeps every pair it sends intact and reports the renames', ({ tokens }) => {
    const raw = loadTranscript(file);
    const { messages, report } = govern(raw, budgetOptions(tokens));
    expect(checkLegality(messages)).toEqual([]);
    expect(checkLegality(enforceRoleAlternation(messages), { request: true })).toEqual([]);

    const sent = pairs(messages);
    expect(sent.every((p) => p.resultId === p.callId)).toBe(true);
    // What is sent is a suffix of the recorded pairs (all of them when nothing is snipped).
    // (An empty recorded result is sent as the reference's "completed with no output" marker.)
    const recorded = withoutIds(pairs(raw)).map((p) => (p.result === '' ? { ...p, result: emptyResultMessage(p.name) } : p));
    expect(withoutIds(sent)).toEqual(recorded.slice(recorded.length - sent.length));

    const step = report.steps.find((s) => s.step === 'repairToolCallIds')!;
    expect(step.changed).toBe(true);
    expect(step.toolResults.filter((r) => r.action === 'renamed')).toHaveLength(extraDeclarations());
    for (const r of step.toolResults) expect(duplicates()).toContain(r.from);
  });

  it("compat 'reference' reproduces the reference's loss: a reused call left without its result", () => {
    const raw = loadTranscript(file);
    const { messages } = govern(raw, { compat: 'reference' });
    const rules = new Set(checkLegality(messages).map((v) => v.rule));
    // The reference keeps the repeated ids and drops the repeats' results as duplicates.
    expect(rules.has('duplicate-tool-call-id')).toBe(true);
    expect(messages.filter((m) => m.role === 'tool').length).toBeLessThan(raw.filter((m) => m.role === 'tool').length);
  });
});
