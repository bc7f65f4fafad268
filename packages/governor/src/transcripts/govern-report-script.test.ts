// The govern-report command (scripts/govern-report.ts) on real transcripts and on bad input.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError, parseArgs, readHistory, runGovernReport } from '../../scripts/govern-report.js';
import type { GovernReport } from '../report/govern-report.js';

const tmp = mkdtempSync(join(tmpdir(), 'govern-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const STEPS = ['stripPlaceholderAssistantMessages', 'repairToolCallIds', 'applyToolResultBudget', 'snipHistory', 'backfillMissingToolResults #2'];

describe('govern-report on recorded transcripts', () => {
  it('names every step with its token counts and reports the reused ids it renamed (tau-bench, no budget)', () => {
    const { code, stdout, stderr } = runGovernReport(['sierra-research-tau-bench__gpt-4o-airline-task33-trial2']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const step of STEPS) expect(stdout).toContain(step);
    expect(stdout).toContain('budget: none (repairs only)');
    expect(stdout).toMatch(/renamed 3 results: call_5NUHKfu77eErzyKd2eLkgRnS → call_5NUHKfu77eErzyKd2eLkgRnS__2/);
    expect(stdout).toMatch(/messages 62 → 62, tokens [\d,]+ → [\d,]+/);
    expect(stdout).toContain('request (after enforceRoleAlternation): legal');
  });

  it('shows snipping bringing a 990-message session under a 32k budget (before-compaction)', () => {
    const { code, stdout } = runGovernReport(['badlogic-pi-mono__before-compaction.json', '--budget', '32000']);
    expect(code).toBe(0);
    expect(stdout).toContain('budget: 32,000 tokens');
    const [, before, after] = /tokens ([\d,]+) → ([\d,]+)/.exec(stdout)!.map((s) => Number(s.replace(/,/g, '')));
    expect(before).toBeGreaterThan(400_000);
    expect(after).toBeLessThanOrEqual(32_000);
    expect(stdout).toMatch(/snipHistory +\d+ → \d+ +[\d,]+ → [\d,]+\n +dropped \d+ \(\d+ user, \d+ assistant, \d+ tool\)/);
    // Aborted turns (an assistant with no text and no calls) are not sent; the report says why.
    expect(stdout).toMatch(/legalizeForTarget +996 → 981[^\n]*\n +dropped 15 \(15 assistant\)[^\n]*\n +why: empty-assistant ×15/);
    expect(stdout).toContain('target: any');
    expect(stdout).toContain('fits: yes');
    expect(stdout).toMatch(/truncated \d+ results: read toolu_/);
    expect(stdout).toMatch(/backfillMissingToolResults +990 → 996/);
  });

  it('--json prints the GovernReport itself', () => {
    const { code, stdout } = runGovernReport(['marot-spotter__cc-ae4a77f8.json', '--window=32000', '--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { report: GovernReport; violations: unknown[] };
    expect(parsed.report.budget).toBe(32_000 - 4096 - 1024);
    expect(parsed.violations).toEqual([]);
    expect(parsed.report.steps.map((s) => s.step)).toContain('snipHistory');
  });

  it('exits 1 and lists the problem when the request cannot fit (the system prompt alone over budget)', () => {
    const file = join(tmp, 'huge.json');
    writeFileSync(file, JSON.stringify([{ role: 'system', content: 'word '.repeat(5000) }, { role: 'user', content: 'hi' }]));
    const { code, stdout } = runGovernReport([file, '--budget', '100']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/fits: no — the instructions and tool definitions alone \(~\d+ tokens\) exceed the budget of 100 tokens/);
    expect(stdout).toMatch(/over-budget at #-1: prompt estimate \d+ exceeds the budget 100/);
  });

  it('shortens a last user turn that alone is over budget, and says so', () => {
    const file = join(tmp, 'huge-user.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'word '.repeat(5000) }]));
    const { code, stdout } = runGovernReport([file, '--budget', '100']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/shrinkToFit +1 → 1 +[\d,]+ → [\d,]+\n +rewrote 1 \(1 user\)\n +why: truncated ×2/);
    expect(stdout).toContain('fits: yes');
  });

  it('reads JSONL, skipping non-message records such as session metadata', () => {
    const file = join(tmp, 'session.jsonl');
    writeFileSync(file, ['{"_type":"metadata","key":"cli:direct"}', '{"role":"user","content":"hi"}', '', '{"role":"assistant","content":"hello"}'].join('\n'));
    expect(readHistory(file)).toEqual([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]);
    expect(runGovernReport([file]).code).toBe(0);
  });
});

describe('govern-report on bad input: a clear message, exit code 2, nothing governed', () => {
  it.each([
    [[], /no file given/],
    [['x.json', '--budget'], /--budget needs a positive whole number of tokens, got nothing/],
    [['x.json', '--budget', '-5'], /--budget needs a positive whole number/],
    [['x.json', '--budget', '1000', '--window', '2000'], /not both/],
    [['x.json', '--frobnicate'], /unknown option --frobnicate/],
    [['a.json', 'b.json'], /one file at a time/],
  ])('%j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    const { code, stderr, stdout } = runGovernReport(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('usage: govern-report');
  });

  it('a missing file, broken JSON, a non-array and a non-message element are named', () => {
    expect(runGovernReport([join(tmp, 'absent.json')]).stderr).toMatch(/no such file/);
    const broken = join(tmp, 'broken.json');
    writeFileSync(broken, '[{"role": "user", "content": "hi"');
    expect(runGovernReport([broken]).stderr).toMatch(/broken\.json: not valid JSON/);
    const obj = join(tmp, 'object.json');
    writeFileSync(obj, '{"role": "user"}\n{"oops"');
    expect(runGovernReport([obj]).stderr).toMatch(/object\.json:2: not a JSON line/);
    const bad = join(tmp, 'bad-element.json');
    writeFileSync(bad, '[{"role": "user", "content": "hi"}, 42]');
    expect(runGovernReport([bad]).stderr).toMatch(/element 1 is not a message/);
  });
});
