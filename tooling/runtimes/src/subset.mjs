// The inputs of the programs: a representative, deterministic subset of the reference's
// conformance cases and a few recorded sessions. Big enough to cover every governance step, the
// token estimates (cl100k ranks), o200k and Claude counts, offload into an artifact store, cuts
// at 8k/32k and every dialect; small enough that each runtime runs it in seconds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from './paths.mjs';

/**
 * Fixture file → stride (1: every case; n: every n-th, starting with the first). Hand-written
 * files are small and each case pins a distinct edge, so they run whole; fuzzed and large files
 * are sampled.
 */
export const CASE_FILES = {
  'tokens/estimate_message_tokens.json': 1,
  'tokens/estimate_prompt_tokens.json': 3,
  'governance/steps_handwritten.json': 1,
  'governance/steps_fuzz.json': 7,
  'governance/apply_tool_result_budget.json': 1,
  'governance/normalize_tool_result.json': 1,
  'governance/input_budget.json': 1,
  'governance/snip_history.json': 6,
  'governance/prepare_for_model_handwritten.json': 1,
  'governance/prepare_for_model_fuzz.json': 10,
  'microcompact/compact_inflight_overflow.json': 6,
  'microcompact/sequences.json': 1,
  'role_alternation/handwritten.json': 1,
  'role_alternation/fuzz.json': 4,
};

/**
 * The tool program's reference cases (`@nanobot/schema`'s castParams and validateJsonSchemaValue).
 * Not checked against the reference here: the schema's own tests hold the documented deviations.
 */
export const TOOL_CASE_FILES = {
  'tool_calls/cast_params.json': 2,
  'tool_calls/validate_json_schema_value.json': 1,
};

/**
 * Recorded sessions governed whole (fixtures/transcripts): small to large, with system prompts
 * and tools, reused tool-call ids, unanswered calls, 30k-character results, reasoning, images.
 */
export const SESSIONS = [
  'sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json',
  'SWE-agent-SWE-agent__marshmallow-1867-function-calling-demo.json',
  'All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json',
  'marot-spotter__cc-4d5611e5-subagent-a2898e3.json',
  'badlogic-pi-mono__web-ui-long-session.json',
  'badlogic-pi-mono__large-session.json',
];

/** The smaller sessions the dialect smoke test converts to each library's format. */
export const DIALECT_SESSIONS = SESSIONS.slice(0, 4);

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const session = (file) => ({ name: file.replace(/\.json$/, ''), messages: readJson(join(fixturesDir, 'transcripts', file)) });

/**
 * The programs' input texts and, for the Node 20 check against the reference, each case's
 * `expected` by case id. The texts keep the fixtures' `{"$float": …}` encoding (read raw, never
 * revived here), so every runtime revives the same bytes itself.
 */
export function buildInputs() {
  const expected = new Map();
  /** @param {Record<string, number>} files @param {(file: string, c: any) => void} [onCase] */
  const sample = (files, onCase = () => {}) =>
    Object.entries(files).flatMap(([file, stride]) =>
      readJson(join(fixturesDir, 'conformance', file))
        .cases.filter((_c, i) => i % stride === 0)
        .map((c) => {
          onCase(file, c);
          return { file, name: c.name, fn: c.fn, input: c.input, config: c.config ?? {} };
        }),
    );
  const cases = sample(CASE_FILES, (file, c) => expected.set(`${file} ${c.name}`, { expected: c.expected, raised: c.raised === true, compacted: c.side_effects?.compacted_tool_call_ids }));
  const toolCases = sample(TOOL_CASE_FILES);
  return {
    conformance: JSON.stringify({ cases, sessions: SESSIONS.map(session) }),
    dialects: JSON.stringify({ sessions: DIALECT_SESSIONS.map(session) }),
    tools: JSON.stringify({ cases: toolCases, sessions: DIALECT_SESSIONS.map(session) }),
    providers: JSON.stringify({ sessions: DIALECT_SESSIONS.map(session) }),
    expected,
    counts: { cases: cases.length, sessions: SESSIONS.length, dialectSessions: DIALECT_SESSIONS.length, toolCases: toolCases.length },
  };
}
