// Offload family: the reference wrote to the RELATIVE workspace "<WORKSPACE>" from an empty temp
// cwd, so we do the same (the vitest pool is `forks`, where process.chdir is allowed; the cwd
// is restored after each case) and compare the returned text plus every file and directory
// left under the workspace.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';
import * as g from './index.js';
import { FileArtifactStore } from './node.js';
import { deepFreeze, jsonClean, loadCases, type ConformanceCase } from '@nanobot-internal/test-support';
import { deviationReason, STRUCTURAL } from './test-support/deviations.js';
import { optionsFromConfig } from './test-support/governance-config.js';

const WS = '<WORKSPACE>';

/** Documented deviations (README): name → reason. */
const DEVIATIONS: Record<string, string> = {
  maybe_persist__existing_file_kept:
    'an existing file with different content is never reused for a new result (reference: first write wins, so a reused tool-call id shows the model a stale file); the new result goes to <id>-<sha256 prefix>.txt',
};

function snapshot(): { files: Record<string, string>; dirs: string[] } {
  const files: Record<string, string> = {};
  const dirs: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        dirs.push(p);
        walk(p);
      } else {
        // The oracle read files back with Python's universal newlines (\r\n → \n).
        files[p] = readFileSync(p, 'utf8').replace(/\r\n?/g, '\n');
      }
    }
  };
  try {
    statSync(WS);
    walk(WS);
  } catch {
    // nothing was written
  }
  return { files, dirs: dirs.sort() };
}

function prepare(c: ConformanceCase): void {
  for (const [path, text] of Object.entries((c.config.preexisting_files ?? {}) as Record<string, string>)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  const now = Date.now() / 1000;
  for (const b of (c.config.preexisting_buckets ?? []) as { name: string; age_seconds: number }[]) {
    const p = join(WS, '.nanobot', 'tool-results', b.name);
    mkdirSync(p, { recursive: true });
    utimesSync(p, now - b.age_seconds, now - b.age_seconds);
  }
}

function inTempDir<T>(c: ConformanceCase, fn: () => T): T {
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), 'nanobot-offload-'));
  try {
    process.chdir(dir);
    prepare(c);
    return fn();
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(c: ConformanceCase, compat: 'fixed' | 'reference'): unknown {
  const o = optionsFromConfig(c.config);
  const store = new FileArtifactStore({ workspace: c.config.workspace });
  const i = c.input;
  switch (c.fn.split('.').pop()) {
    case 'maybe_persist_tool_result':
      return g.maybePersistToolResult(i.content, { artifactStore: store, sessionKey: i.session_key, toolCallId: i.tool_call_id, maxToolResultChars: i.max_chars });
    case 'normalize_tool_result':
      return g.normalizeToolResult(i.tool_call_id, i.tool_name, i.result, { artifactStore: store, sessionKey: o.sessionKey, maxToolResultChars: o.maxToolResultChars! });
    case 'apply_tool_result_budget':
      return g.applyToolResultBudget(i.messages, { artifactStore: store, sessionKey: o.sessionKey, maxToolResultChars: o.maxToolResultChars! });
    case 'prepare_for_model':
      return g.govern(i.messages as Message[], { ...o, compat, artifactStore: store, compactedToolCallIds: new Set(i.compacted_tool_call_ids ?? []) }).messages;
  }
  throw new Error(`no runner for ${c.fn}`);
}

let exact = 0;
let deviations = 0;

describe('conformance offload/offload.json', () => {
  it.each(loadCases('offload/offload.json').map((c) => [c.name, c] as const))('%s', (name, c) => {
    deepFreeze(c);
    if (DEVIATIONS[name] !== undefined) {
      deviations++;
      inTempDir(c, () => {
        const out = run(c, 'fixed');
        expect(isDeepStrictEqual(jsonClean(out), c.expected)).toBe(false);
        // The reference text points at a file holding exactly this result; the old file stays.
        const location = /Full output saved to: (.*)\n/.exec(out as string)![1];
        expect(readFileSync(location, 'utf8')).toBe(c.input.content);
        expect(readFileSync(`${WS}/.nanobot/tool-results/default/call_1.txt`, 'utf8')).toBe('OLD CONTENT');
      });
      return;
    }
    // The reference-compatible run reproduces the output and the files exactly.
    const ref = inTempDir(c, () => ({ out: run(c, 'reference'), after: snapshot() }));
    expect(jsonClean(ref.out)).toEqual(c.expected);
    expect(ref.after.files).toEqual(c.side_effects!.files);
    expect(ref.after.dirs).toEqual([...c.side_effects!.dirs].sort());
    if (!c.fn.endsWith('prepare_for_model')) {
      exact++;
      return;
    }
    const ours = inTempDir(c, () => run(c, 'fixed'));
    if (isDeepStrictEqual(jsonClean(ours), c.expected)) {
      exact++;
      return;
    }
    const reason = deviationReason(c);
    expect(reason, `undocumented deviation in ${name}`).not.toBeNull();
    expect(checkLegality(ours as Message[]).filter((v) => STRUCTURAL.has(v.rule))).toEqual([]);
    expect(checkLegality(ours as Message[], { target: 'any' })).toEqual([]);
    deviations++;
  });
});

afterAll(() => console.log(`offload conformance: ${exact} exact, ${deviations} documented deviations`));
