// Issue 29 items 2 and 3: size rules by declared traits (not by name) in the default mode, the
// reference's by-name rules in `compat: 'reference'`, and notes that never read as errors.
import { describe, expect, it } from 'vitest';
import { toolTraitsTable, type Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { govern } from '../../govern.js';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';

const call = (id: string, name: string, args: object = {}): Message => ({
  role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
} as Message);
const result = (id: string, name: string, content: string): Message => ({ role: 'tool', tool_call_id: id, name, content } as Message);
const fileLines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from + i}|${'some file text '.repeat(6)}`).join('\n');

describe('tool traits decide the size rules', () => {
  it('a user tool that only shares read_file\'s name is budgeted like any other (no exemption, no compaction)', () => {
    const big = 'line of a 24 KB result\n'.repeat(1100);
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'read it' }, call('a', 'read_file'), result('a', 'read_file', big)]);
    const out = govern(history, { maxToolResultChars: 2000 });
    const text = String(out.messages[2].content);
    expect(text.length).toBeLessThan(2300);
    expect(text.startsWith('Error')).toBe(false);
    expect(text).toContain('[output shortened to fit the context: 2,000 of 25,300 characters shown');
    // The reference exempts it by name.
    expect(govern(history, { maxToolResultChars: 2000, compat: 'reference' }).messages[2]).toBe(history[2]);
    // In-flight compaction only for a declared compactable tool.
    const tight = { contextWindowTokens: 4000, maxOutputTokens: 500, maxToolResultChars: 0, onOverflow: 'send' as const };
    expect(govern(history, tight).report.newlyCompactedToolCallIds).toEqual([]);
    expect(govern(history, { ...tight, compat: 'reference' }).report.newlyCompactedToolCallIds).toEqual(['a']);
    // Declared compactable: compacted while older in-flight results remain (the result the model
    // waits on is shortened instead, issue 29 item 1), so a newer step follows it here.
    const older = deepFreeze<Message[]>([...history, call('b', 'list_dir'), result('b', 'list_dir', 'a.txt b.txt')]);
    const declared = govern(older, { ...tight, toolTraits: toolTraitsTable([['read_file', { compactable: true }]]) });
    expect(declared.report.newlyCompactedToolCallIds).toEqual(['a']);
    expect(String(declared.messages[2].content)).toMatch(/^\[read_file ran successfully; its output \(25,300 characters\) was left out of this request to fit the context/);
    const newest = govern(history, { ...tight, toolTraits: toolTraitsTable([['read_file', { compactable: true }]]) });
    expect(newest.report.newlyCompactedToolCallIds).toEqual([]);
    expect(String(newest.messages[2].content)).toMatch(/^\[output shortened to fit the context: /);
  });

  it('a rereadable result is cut at a line with where to read on, never offloaded', () => {
    const store = new MemoryArtifactStore();
    const body = fileLines(40, 300);
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'read' }, call('r', 'read_file', { path: 'a.ts', offset: 40, limit: 300 }), result('r', 'read_file', body)]);
    const toolTraits = toolTraitsTable([['read_file', { readOnly: true, compactable: true, rereadable: true }]]);
    const out = govern(history, { maxToolResultChars: 3000, artifactStore: store, sessionKey: 's', toolTraits });
    const text = String(out.messages[2].content);
    expect(text.length).toBeLessThanOrEqual(3000 + 40);
    const shown = text.split('\n\n')[0].split('\n');
    const last = Number(shown[shown.length - 1].split('|')[0]);
    expect(shown[0].startsWith('40|')).toBe(true);
    expect(text).toContain(`[output shortened to fit the context: lines 40\u2013${last} shown (`);
    expect(text).toContain(`to read on, call read_file with offset=${last + 1} and limit=${last - 39}]`);
    expect(store.read('memory:/.nanobot/tool-results/s/r.txt')).toBeUndefined();
    const step = out.report.steps.find((s) => s.step === 'applyToolResultBudget')!;
    expect(step.toolResults).toEqual([{ toolCallId: 'r', name: 'read_file', action: 'truncated', originalChars: body.length }]);
  });

  it('checks toolTraits', () => {
    expect(() => govern([], { toolTraits: { x: 1 } as never })).toThrow(/toolTraits/);
    expect(() => govern([], { toolTraits: [] as never })).toThrow(/toolTraits/);
  });
});
