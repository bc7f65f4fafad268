import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUsageCalibrator } from '@nanobot/governor';
import { defaultArtifactsDir } from '@nanobot/runner';
import { sessionFileName } from '@nanobot/session';
import type { SessionInspection } from './inspect-session.js';
import { writeGovernanceFixture } from './test-support/session-fixture.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

function setup() {
  const workspace = tempDir('ws');
  const sessions = tempDir('sessions');
  const file = join(sessions, sessionFileName('fixture'));
  const text = writeGovernanceFixture(file, 'fixture');
  return { workspace, sessions, file, text, env: cleanEnv({ NANOBOT_WORKSPACE: workspace, NANOBOT_SESSIONS_DIR: sessions }) };
}

/** Text with wrapped lines joined again (a continued line starts with spaces). */
function unwrap(text: string): string {
  return text.replace(/\n {2,}(?![↳#])/g, ' ');
}

describe('nanobot inspect governs as run does', () => {
  it('uses the configured model (its tokenizer) and the saved usage calibration, and changes neither', async () => {
    const { sessions, file, env } = setup();
    // An old replayed turn in Japanese, which o200k_base counts in far fewer tokens than
    // cl100k_base: the fixture's English filler counts within a few tokens in both, less than
    // the random temp paths in the system prompt move a count, so the two runs' totals could
    // come out equal by chance.
    const lines = readFileSync(file, 'utf8').split('\n');
    const japanese = 'このセッションの古い質問は日本語で書かれています。'.repeat(60);
    lines.splice(5, 0, JSON.stringify({ role: 'user', content: japanese }), JSON.stringify({ role: 'assistant', content: japanese }));
    writeFileSync(file, lines.join('\n'));
    const calibrator = createUsageCalibrator();
    calibrator.observe({ model: 'gpt-4o', estimated: 1000, actual: 1400 });
    const calibration = join(sessions, 'usage-calibration.json');
    const saved = `${JSON.stringify(calibrator)}\n`;
    writeFileSync(calibration, saved);
    // A provider is configured (never contacted: inspect only reads).
    const withModel = { ...env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', NANOBOT_MODEL: 'gpt-4o' };
    const result = await runCli(['inspect', 'fixture', '--json', '--context-window', '20000'], { env: withModel });
    expect(result.code).toBe(0);
    const x = JSON.parse(result.stdout) as SessionInspection;
    expect(x.budget).toMatchObject({ model: 'gpt-4o', tokenizer: 'o200k_base', inputBudget: 20_000 - 2560 - 1024, fits: true });
    // No maxTokens: the reply reserve is the governor's (an eighth of the window), shown as such.
    expect(x.budget).toMatchObject({ maxOutputTokens: 2560, replyReserveSource: 'window' });
    expect(x.budget.tokensEstimated).toBe(x.budget.tokensAfter);
    // The calibration says gpt-4o bills 1.4× the estimate: the request is sized by that.
    expect(x.budget.tokensCalibrated!).toBeGreaterThan(x.budget.tokensAfter * 1.3);
    expect(x.budget.tokensCalibrated!).toBeLessThanOrEqual(x.budget.inputBudget!);
    expect(x.budget.budget).toBeLessThan(x.budget.inputBudget!);

    const plain = JSON.parse((await runCli(['inspect', 'fixture', '--json', '--context-window', '20000'], { env })).stdout) as SessionInspection;
    expect(plain.budget).toMatchObject({ model: null, tokenizer: 'cl100k_base', budget: 16_416 });
    expect(plain.budget.tokensCalibrated).toBeUndefined();
    // The same history counted with cl100k_base: the Japanese turn alone is hundreds of tokens more.
    expect(plain.budget.tokensBefore - x.budget.tokensBefore).toBeGreaterThan(500);

    const text = await runCli(['inspect', 'fixture', '--context-window', '20000'], { env: withModel });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^model {4}gpt-4o; tokens counted with o200k_base$/m);
    expect(unwrap(text.stdout)).toMatch(/^budget {3}16,416 tokens for the request: the 20,000-token window less 2,560 for the reply \(an eighth of the window: no maxTokens set\) and a 1,024-token safety margin the provider has billed about [\d.]+ tokens for each token we count, so that is [\d,]+ of ours$/m);
    expect(unwrap(text.stdout)).toMatch(/^request {2}[\d,]+ tokens, about [\d,]+ billed/m);
    for (const line of text.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(readFileSync(calibration, 'utf8')).toBe(saved);
  }, 60_000);
});

describe('nanobot inspect on a session with orphans and oversized results', () => {
  it('shows every governance action per message, and writes nothing', async () => {
    const { workspace, sessions, file, text, env } = setup();
    const result = await runCli(['inspect', 'fixture', '--json', '--context-window', '20000'], { env });
    // The fixture holds a call without a name on purpose (the governor strips it): named on stderr.
    expect(result.stderr).toBe('session fixture: message 32 has 1 malformed tool call (of 1); kept on disk, not sent to the model\n');
    expect(result.code).toBe(0);
    const x = JSON.parse(result.stdout) as SessionInspection & { file: string };
    expect(x.file).toBe(file);
    expect(x.counts).toMatchObject({ stripped: 5, backfilled: 1, offloaded: 1, compacted: 3, 'not-replayed': 4 });
    expect(x.counts.snipped).toBeGreaterThan(0);
    expect(x.budget).toMatchObject({ contextWindowTokens: 20_000, budget: 20_000 - 2560 - 1024, fits: true });
    expect(x.budget.tokensAfter).toBeLessThan(x.budget.tokensBefore);
    expect(x.systemPrompt.sections.map((s) => s.name)).toEqual(expect.arrayContaining(['identity', 'tool_contract']));
    expect(x.tools.count).toBeGreaterThan(5);

    const byMark = (mark: string) => x.timeline.filter((e) => e.marks.includes(mark as never));
    // The failed request stored the old way (a placeholder reply) replays as nanobot's note, a user
    // row, never as the assistant's words: it and the next user message are merged into the user
    // turn before them, as the target ('any': legal for Anthropic too) requires. The malformed
    // call's orphaned result is stripped (the call itself is kept without it).
    expect(byMark('stripped').map((e) => `${e.role}:${e.sent}`).sort()).toEqual(['assistant:false', 'assistant:true', 'tool:false', 'user:false', 'user:false']);
    expect(x.timeline.find((e) => e.storedIndex === 25)).toMatchObject({ role: 'user', preview: expect.stringContaining('the model request for the turn above failed') });
    expect(x.timeline.some((e) => e.role === 'assistant' && e.preview.includes('[Previous assistant message omitted.]'))).toBe(false);
    expect(byMark('stripped').find((e) => e.role === 'tool')?.toolCallId).toBe('bad_1');
    expect(byMark('backfilled')[0]).toMatchObject({ role: 'tool', toolCallId: 'lost_1', sent: true, index: null });
    const offloaded = byMark('offloaded')[0];
    expect(offloaded).toMatchObject({ role: 'tool', toolCallId: 'big_1', sent: true });
    expect(offloaded.originalTokens!).toBeGreaterThan(offloaded.tokens);
    expect(offloaded.details[offloaded.marks.indexOf('offloaded')]).toContain(join(defaultArtifactsDir(sessions), '.nanobot', 'tool-results'));
    expect(offloaded.details[offloaded.marks.indexOf('offloaded')]).not.toContain(workspace);
    expect(byMark('compacted').map((e) => e.toolCallId)).toEqual(['rep_1', 'rep_2', 'rep_3']);
    expect(byMark('snipped').every((e) => !e.sent && /^old (question|answer)/.test(e.preview))).toBe(true);
    // "Why did the model forget turn 0?": replay starts after the orphan result.
    expect(byMark('not-replayed')[0].details[0]).toMatch(/orphan tool result at stored #3/);

    // Read-only: the session file is byte-identical and nothing was offloaded to disk.
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(join(workspace, '.nanobot'))).toBe(false);
  });

  it('prints the same as text, with the marks, for the latest session by default', async () => {
    const { env } = setup();
    const result = await runCli(['inspect', '--context-window', '20000'], { env });
    expect(result.code).toBe(0);
    for (const mark of ['STRIPPED', 'BACKFILLED', 'OFFLOADED', 'COMPACTED', 'SNIPPED', 'NOT-REPLAYED']) expect(result.stdout).toContain(mark);
    expect(result.stdout).toMatch(/^session {2}fixture/m);
    expect(unwrap(result.stdout)).toMatch(/budget {3}16,416 tokens for the request: the 20,000-token window less 2,560 for the reply \(an eighth of the window: no maxTokens set\) and a 1,024-token safety margin/);
    expect(unwrap(result.stdout)).toMatch(/^summary {2}.*\d+ snipped.*5 stripped/m);
    // Piped: laid out for 80 columns.
    for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('with a roomy budget nothing is compacted or snipped; a session file can be named by path', async () => {
    const dir = tempDir('files');
    mkdirSync(join(dir, 'x'));
    const path = join(dir, 'x', 'copy.jsonl');
    writeGovernanceFixture(path, 'copied');
    const result = await runCli(['inspect', path, '--json', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const x = JSON.parse(result.stdout) as SessionInspection;
    expect(x.session.key).toBe('copied');
    expect(x.counts.compacted).toBeUndefined();
    expect(x.counts.snipped).toBeUndefined();
    expect(x.counts).toMatchObject({ stripped: 5, backfilled: 1, offloaded: 1 });
    expect(x.budget.fits).toBe(true);
  });

  it('inspects a session a real run just wrote', async () => {
    const sessions = tempDir('sessions');
    const workspace = tempDir('ws');
    const model = await startToolFollowingServer();
    const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, NANOBOT_WORKSPACE: workspace });
    try {
      expect((await runCli(['run', '-m', 'list files'], { env: { ...env, OPENAI_BASE_URL: model.url } })).code).toBe(0);
    } finally {
      await model.close();
    }
    expect(readdirSync(sessions).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
    const result = await runCli(['inspect'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nothing to change: the history is sent as stored');
    // The run finished its turn: its reply is history, not in flight.
    expect(result.stdout).not.toContain('IN-FLIGHT');
    expect(result.stdout).toMatch(/tool list_dir/);
  });

  it('--context-window 1536 says the window is not larger than the reply reserve and the margin, never "fits"', async () => {
    const { env } = setup();
    // The smallest default reserve is 512 tokens: 512 + the 1,024 margin leave nothing of 1,536.
    const result = await runCli(['inspect', '--context-window', '1536'], { env });
    expect(result.code).toBe(0);
    expect(unwrap(result.stdout)).toMatch(/^budget {3}none: the 1,536-token window is not larger than the 512 tokens kept for the reply \(an eighth of the window: no maxTokens set\) plus the 1,024-token safety margin/m);
    expect(result.stdout).toMatch(/^request .*NO BUDGET/m);
    expect(result.stdout).not.toMatch(/\bfits\b/);
    // Every mark the timeline can show is explained, IN-FLIGHT included (the fixture's last turn is unfinished).
    expect(unwrap(result.stdout)).toMatch(/^Timeline: .*IN-FLIGHT: part of the unfinished latest turn/m);
    const json = JSON.parse((await runCli(['inspect', '--json', '--context-window', '1536'], { env })).stdout) as SessionInspection;
    expect(json.budget).toMatchObject({ budget: 0, maxOutputTokens: 512, windowTooSmall: true, fits: false });
  });
});
