import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkLegality } from '@nanobot/governor';
import { describe, expect, it } from 'vitest';
import { readHistory } from './read-history.js';
import { runPlayground } from './run-playground.js';

const fixture = (path: string): string => readFileSync(join(process.env.NANOBOT_FIXTURES_DIR!, path), 'utf8');

describe('runPlayground', () => {
  it('a recorded session over its budget: rows add up, every change has its rule, the request is legal for its target', () => {
    const history = readHistory(fixture('transcripts/All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json'));
    const run = runPlayground(history, { target: 'anthropic', model: 'claude-sonnet-4-5', budget: 6000 });
    expect(run.format).toBe('openai');
    expect(run.budget).toBe(6000);
    expect(run.report.fits).toBe(true);
    // Every message of the history is sent or removed, once; every sent message is a row.
    const fromHistory = run.rows.filter((r) => r.status !== 'added');
    expect(fromHistory).toHaveLength(run.view.length);
    expect(run.rows.filter((r) => r.status !== 'removed')).toHaveLength(run.governed.length);
    expect(run.rows.some((r) => r.status === 'removed')).toBe(true);
    for (const row of run.rows) {
      if (row.status === 'kept') expect(row.changes).toEqual([]);
      else for (const change of row.changes) expect(change.why.length).toBeGreaterThan(10);
      if (row.status !== 'kept') expect(row.changes.length).toBeGreaterThan(0);
    }
    // The request's tokens per row sum to the governor's count of the request (the overhead aside).
    const after = run.rows.reduce((n, r) => n + r.after, 0);
    expect(after).toBeLessThanOrEqual(run.report.tokensAfter!);
    expect(after).toBe(run.snapshot.budget.system + run.snapshot.budget.history + run.snapshot.budget.current);
    // The verdicts are checkLegality's, per target.
    const anthropic = run.legality.find((v) => v.target === 'anthropic')!;
    expect(anthropic.after).toEqual([]);
    expect(anthropic.before).toEqual(checkLegality(run.view, { target: 'anthropic', model: run.model, budget: 6000 }));
    expect(anthropic.before.some((v) => v.rule === 'over-budget')).toBe(true);
    expect(run.legality.map((v) => v.target)).toContain('mistral');
    expect(run.request.body).toEqual({ messages: run.governed });
  });

  it('an Anthropic history for Anthropic: the request is governAnthropic\'s, the rows follow the report', () => {
    const text = JSON.stringify({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'List src.' },
        { role: 'assistant', content: [{ type: 'text', text: '  ' }, { type: 'tool_use', id: 'toolu_1', name: 'ls', input: { path: 'src' } }] },
        { role: 'user', content: 'Well?' },
      ],
    });
    const run = runPlayground(readHistory(text), { target: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(run.format).toBe('anthropic');
    expect(run.request.via).toMatch(/^governAnthropic/);
    const body = run.request.body as { system: string; messages: { role: string; content: unknown }[] };
    expect(body.system).toBe('Be brief.');
    // The call got a result first in the next user turn.
    expect(JSON.stringify(body.messages[2].content)).toContain('tool_result');
    expect(run.rows.some((r) => r.status === 'added' && r.changes.some((c) => c.action === 'backfilled'))).toBe(true);
    expect(run.legality.find((v) => v.target === 'anthropic')!.before.map((v) => v.rule)).toContain('unanswered-tool-call');
  });

  it('Responses and AI SDK histories go through their dialects', () => {
    const responses = JSON.stringify([{ role: 'user', content: 'Weather?' }, { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{}' }]);
    const r = runPlayground(readHistory(responses), { target: 'responses', model: 'gpt-4o' });
    expect(r.request.via).toMatch(/^governResponses/);
    expect(JSON.stringify(r.request.body)).toContain('function_call_output');
    const aiSdk = JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }] }]);
    const a = runPlayground(readHistory(aiSdk), { target: 'gemini', model: 'gemini-2.5-pro' });
    expect(a.request.via).toMatch(/^governModelMessages/);
    expect(JSON.stringify(a.request.body)).toContain('tool-result');
    expect(a.tokenizer).toBe('cl100k_base');
  });

  it('a history that is not of its format is refused with the dialect\'s error', () => {
    expect(() => runPlayground(readHistory('[{"role":"user","content":"x"},{"role":"assistant","content":7}]', 'anthropic'), { target: 'anthropic', model: 'gpt-4o' })).toThrow(/content/);
  });
});
