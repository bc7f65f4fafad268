// The programs every runtime runs, run here in Node against the packages' sources: the calls
// they make must still match the packages' API (a renamed export or option breaks this test, not
// only the runtime job), and their reference-compatible results must equal the reference's.
import { describe, expect, it } from 'vitest';
import { run as runConformance } from '../programs/conformance.mjs';
import { run as runDialects } from '../programs/dialects.mjs';
import { run as runProviders } from '../programs/providers.mjs';
import { run as runTools } from '../programs/tools.mjs';
import { checkAgainstReference } from './reference-check.mjs';
import { buildInputs, CASE_FILES } from './subset.mjs';

const inputs = buildInputs();

describe('the subset', () => {
  it('samples every case file, with unique case ids', () => {
    const { cases } = JSON.parse(inputs.conformance) as { cases: { file: string; name: string }[] };
    expect(new Set(cases.map((c) => c.file))).toEqual(new Set(Object.keys(CASE_FILES)));
    const ids = cases.map((c) => `${c.file} ${c.name}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(inputs.expected.size).toBe(ids.length);
  });
});

describe('programs/conformance', () => {
  it('runs the first cases of every file and a session; reference results equal the reference', async () => {
    const all = JSON.parse(inputs.conformance) as { cases: { file: string }[]; sessions: unknown[] };
    const seen = new Map<string, number>();
    const cases = all.cases.filter((c) => {
      seen.set(c.file, (seen.get(c.file) ?? 0) + 1);
      return seen.get(c.file)! <= 3;
    });
    const { text, probe } = await runConformance(JSON.stringify({ cases, sessions: all.sessions.slice(0, 1) }));
    const check = checkAgainstReference(text, inputs.expected);
    expect(check.checked).toBe(cases.length);
    expect(check.mismatches).toEqual([]);
    const rows = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l.replace(/,$/, '')));
    const sessionRows = rows.filter((r) => r.id.startsWith('session '));
    expect(sessionRows).toHaveLength(3);
    for (const r of sessionRows) {
      expect(r.out.error).toBeUndefined();
      expect(r.out.value.legality).toEqual([]);
    }
    expect(rows[0]).toMatchObject({ cl100k: { value: expect.any(Number) }, o200k: { value: expect.any(Number) } });
    expect(probe).toEqual({ cl100kLoaded: true, o200kLoaded: true });
  });
});

describe('programs/dialects', () => {
  it('governs a session through every dialect without an error', async () => {
    const all = JSON.parse(inputs.dialects) as { sessions: unknown[] };
    const { text } = await runDialects(JSON.stringify({ sessions: all.sessions.slice(0, 1) }));
    const rows = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l.replace(/,$/, '')));
    expect(rows.map((r) => r.id.split(' ')[0])).toEqual(['ai-sdk', 'langchain', 'governor/anthropic', 'governor/responses', 'ai-sdk', 'langchain', 'governor/anthropic', 'governor/responses']);
    for (const r of rows) {
      expect(r.out.error).toBeUndefined();
      expect(r.out.value.report.messagesAfter).toBeGreaterThan(0);
    }
  });
});

describe('programs/tools', () => {
  it('runs the reference cases, message parsing and the tools-core README tool without an error', async () => {
    const { text } = await runTools(inputs.tools);
    const rows = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l.replace(/,$/, '')));
    expect(rows.length).toBe(inputs.counts.toolCases + inputs.counts.dialectSessions + 15);
    expect(rows.filter((r) => r.out.error)).toEqual([]);
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.out.value]));
    expect(byId['tools-core weather execute Oslo']).toBe('21°C and sunny in Oslo (asked from cli:42)');
    expect(byId['tools-core weather parseArgs {"city":"O"}'].ok).toBe(false);
    // The full validator (ajv) ran: pattern, format, oneOf and additionalProperties are enforced.
    expect(byId['schema validateParams {"path":"/tmp/x","when":"2026-11-01T10:00:00Z","mode":"read"}']).toEqual([]);
    expect(byId['schema validateParams {"path":"relative","when":"yesterday","mode":"append"}'].length).toBeGreaterThanOrEqual(3);
  });
});

describe('programs/providers', () => {
  it('asks each fetch-based provider for a plain and a streamed answer and reads both whole', async () => {
    const { text } = await runProviders(inputs.providers);
    const rows = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l.replace(/,$/, '')));
    expect(rows.filter((r) => r.out.error || r.out.answer?.error)).toEqual([]);
    const answers = rows.filter((r) => r.id.startsWith('providers ') && r.out.answer);
    expect(answers).toHaveLength(inputs.counts.dialectSessions * 2 * 3);
    for (const r of answers) {
      const answer = r.out.answer.value;
      // The canned reply came through the SDK and the provider's parser intact, chat or stream.
      expect(answer.content, r.id).toBe('Ünïcödé — ✓ 日本語 🙂 done');
      expect(answer.toolCalls.map((c: { name: string; arguments: unknown }) => [c.name, c.arguments]), r.id).toEqual([['read_file', { path: 'notes/日本.md', mode: 'read' }]]);
      expect(r.out.sent, r.id).toHaveLength(1);
      expect(r.out.sent[0].body.messages ?? r.out.sent[0].body.input, r.id).toBeDefined();
    }
    const streamed = answers.filter((r) => r.id.includes(' stream '));
    expect(streamed.every((r) => r.out.events > 2)).toBe(true);
    // The registry's providers are built with the given fetch and answer through it.
    const built = rows.filter((r) => r.id.startsWith('providers createProvider'));
    expect(built.map((r) => [r.out.built.value?.name, r.out.built.value?.answer.content, r.out.sent.map((s: { path: string }) => s.path)])).toEqual([
      ['deepseek', 'Ünïcödé — ✓ 日本語 🙂 done', ['/chat/completions']],
      ['mistral', 'Ünïcödé — ✓ 日本語 🙂 done', ['/v1/chat/completions']],
      ['anthropic', 'Ünïcödé — ✓ 日本語 🙂 done', ['/v1/messages']],
      ['ollama', 'Ünïcödé — ✓ 日本語 🙂 done', ['/v1/chat/completions']],
    ]);
  });
});
