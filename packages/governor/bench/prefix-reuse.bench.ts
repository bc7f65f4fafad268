// Prefix reuse and simulated prompt-cache cost of governing long recorded sessions, as a runner
// sends them: at every point where a request would go out (every prefix ending at a user turn or
// a tool result, i.e. before each assistant message), at a 32k window, carrying the cut plan from
// request to request of the session (and the compacted ids within each user turn's run).
// Per request: the share of the serialised request messages (JSON of each message, by
// characters) identical to the previous request's leading messages. Cost: the prompt estimate,
// split by that share into a cache read (0.1×) and a cache write (1.25×, everything after the
// cached prefix), at the prices of the model table's claude-sonnet entry. Variants, all in
// this one run: ours (default: stable cuts), ours with `compat: 'reference'`, the old default
// (`cuts: 'tightest'`) and a naive keep-the-newest-that-fit baseline; stable cuts at other
// target ratios below. Prints figures and ratios; asserts nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { estimateMessageTokens, estimatePromptTokens, lookupModel, type Message } from '@nanobot/schema';
import { findLegalMessageStart, govern, inputBudget, isInstructionRole, type CutPlan, type GovernOptions } from '../src/index.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const MIN_MESSAGES = 150;
const WINDOW = 32_000;
const MODEL = 'claude-sonnet-4-5';
const prices = lookupModel(MODEL)!.prices!;
const base: GovernOptions = { contextWindowTokens: WINDOW };
const budget = inputBudget(base);

interface Outcome { messages: readonly Message[]; tokens: number }
type Variant = { name: string; run: (session: Message[]) => Outcome[] };

/** Request points: prefixes ending right before an assistant message. */
function requestEnds(messages: readonly Message[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'assistant' && messages[i - 1].role !== 'assistant') out.push(i);
  return out;
}

/**
 * Governs every request of a session as the runner would: the plan per session, the compacted
 * ids per run (one user turn), or per session with `idsPerSession`.
 */
function governed(options: GovernOptions, idsPerSession = false): (session: Message[]) => Outcome[] {
  return (session) => {
    let plan: CutPlan | null = null;
    let ids = new Set<string>();
    let runStart = -1;
    return requestEnds(session).map((end) => {
      const prefix = session.slice(0, end);
      const lastUser = prefix.findLastIndex((m) => m.role === 'user');
      if (lastUser !== runStart) {
        runStart = lastUser;
        if (!idsPerSession) ids = new Set();
      }
      const r = govern(prefix, { ...options, cutPlan: plan, compactedToolCallIds: ids, inflightStartIndex: lastUser + 1 });
      plan = r.cutPlan;
      return { messages: r.messages, tokens: r.report.tokensAfter ?? 0 };
    });
  };
}

/** Instructions plus the newest messages whose per-message estimates fit, from a legal start. */
function naive(session: Message[]): Outcome[] {
  return requestEnds(session).map((end) => {
    const prefix = session.slice(0, end);
    const system = prefix.filter((m) => isInstructionRole(m.role));
    let room = budget - system.reduce((n, m) => n + estimateMessageTokens(m), 0);
    let from = prefix.length;
    while (from > 0 && !isInstructionRole(prefix[from - 1].role) && room - estimateMessageTokens(prefix[from - 1]) >= 0) {
      from--;
      room -= estimateMessageTokens(prefix[from]);
    }
    const tail = prefix.slice(from).filter((m) => !isInstructionRole(m.role));
    const messages = [...system, ...tail.slice(findLegalMessageStart(tail))];
    return { messages, tokens: estimatePromptTokens(messages) };
  });
}

interface Score { reuse: number; cost: number; over: number; requests: number; tokens: number }

function score(outcomes: Outcome[]): Score {
  let shared = 0;
  let total = 0;
  let cost = 0;
  let over = 0;
  let tokens = 0;
  let previous: string[] = [];
  for (const o of outcomes) {
    const json = o.messages.map((m) => JSON.stringify(m));
    const size = json.reduce((n, s) => n + s.length, 0);
    let same = 0;
    for (let i = 0; i < json.length && i < previous.length && json[i] === previous[i]; i++) same += json[i].length;
    const share = size > 0 ? same / size : 0;
    if (previous.length > 0) {
      shared += same;
      total += size;
    }
    cost += (o.tokens * (share * prices.cachedInput! + (1 - share) * prices.cacheWrite!)) / 1e6;
    if (o.tokens > budget) over++;
    tokens += o.tokens;
    previous = json;
  }
  return { reuse: total > 0 ? shared / total : 1, cost, over, requests: outcomes.length, tokens };
}

const variants: Variant[] = [
  { name: 'ours (stable)', run: governed(base) },
  { name: "compat 'reference'", run: governed({ ...base, compat: 'reference' }) },
  { name: "old default 'tightest'", run: governed({ ...base, cuts: 'tightest' }) },
  { name: 'naive newest-that-fit', run: naive },
];
const ratios = [0.4, 0.5, 0.7, 0.8];
const ratioVariants: Variant[] = ratios.map((r) => ({ name: `stable ${r}`, run: governed({ ...base, cutTargetRatio: r }) }));

const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const sessions = files
  .map((f) => ({ name: f.replace(/\.json$/, ''), messages: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[] }))
  .filter((s) => s.messages.length >= MIN_MESSAGES);
console.log(`prefix reuse at a ${WINDOW / 1000}k window (input budget ${budget}), sessions with >= ${MIN_MESSAGES} messages: ${sessions.length}`);
console.log(`cost: ${MODEL} prices per million (cache read $${prices.cachedInput}, cache write $${prices.cacheWrite}; uncached $${prices.input})`);

const all = [...variants, ...ratioVariants];
const results = new Map<string, Score[]>(all.map((v) => [v.name, []]));
const t0 = performance.now();
const head = (label: string) => `${label.padEnd(48)}${'msgs'.padStart(6)}${'reqs'.padStart(6)}`;
console.log(`\n${head('session')}${variants.map((v) => v.name.padStart(30)).join('')}`);
console.log(`${''.padEnd(60)}${variants.map(() => 'reuse    cost$  over'.padStart(30)).join('')}`);
for (const s of sessions) {
  const cells = all.map((v) => {
    const sc = score(v.run(s.messages));
    results.get(v.name)!.push(sc);
    return sc;
  });
  const row = cells.slice(0, variants.length).map((c) => `${c.reuse.toFixed(3).padStart(14)}${c.cost.toFixed(3).padStart(9)}${String(c.over).padStart(6)}`).join('');
  console.log(`${s.name.slice(0, 46).padEnd(48)}${String(s.messages.length).padStart(6)}${String(cells[0].requests).padStart(6)}${row}`);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = (name: string) => {
  const sc = results.get(name)!;
  return { reuse: mean(sc.map((x) => x.reuse)), min: Math.min(...sc.map((x) => x.reuse)), cost: sc.reduce((n, x) => n + x.cost, 0), over: sc.reduce((n, x) => n + x.over, 0), tokens: sc.reduce((n, x) => n + x.tokens, 0) / sc.reduce((n, x) => n + x.requests, 0) };
};
const old = summary("old default 'tightest'");
console.log(`\n${'variant'.padEnd(26)}${'mean reuse'.padStart(12)}${'min reuse'.padStart(11)}${'cost $'.padStart(10)}${'cost / old default'.padStart(20)}${'over budget'.padStart(13)}${'mean prompt tokens'.padStart(20)}`);
for (const v of all) {
  const s = summary(v.name);
  console.log(`${v.name.padEnd(26)}${s.reuse.toFixed(3).padStart(12)}${s.min.toFixed(3).padStart(11)}${s.cost.toFixed(3).padStart(10)}${`${(s.cost / old.cost).toFixed(3)}×`.padStart(20)}${String(s.over).padStart(13)}${s.tokens.toFixed(0).padStart(20)}`);
}
// The recorded tools are not nanobot's, so in-flight compaction never applies to them. Renamed
// to nanobot's compactable tools (Read/read → read_file, Bash/bash → exec, Grep → grep), it
// does: compacted ids kept per run (the reference, the runner today) or per session.
const NANOBOT_NAMES: Record<string, string> = { Read: 'read_file', read: 'read_file', Bash: 'exec', bash: 'exec', Grep: 'grep', Glob: 'find_files' };
const rename = (messages: Message[]): Message[] => {
  const names = new Map<string, string>();
  return messages.map((m) => {
    if (m.role === 'assistant' && m.tool_calls) {
      for (const c of m.tool_calls) if (NANOBOT_NAMES[c.function.name]) names.set(c.id, NANOBOT_NAMES[c.function.name]);
      return { ...m, tool_calls: m.tool_calls.map((c) => (NANOBOT_NAMES[c.function.name] ? { ...c, function: { ...c.function, name: NANOBOT_NAMES[c.function.name] } } : c)) };
    }
    const renamed = m.role === 'tool' ? names.get(String(m.tool_call_id)) : undefined;
    return renamed === undefined ? m : { ...m, name: renamed };
  });
};
const compactionVariants: Variant[] = [
  { name: 'stable, ids per run', run: governed(base) },
  { name: 'stable, ids per session', run: governed(base, true) },
  { name: "'tightest', ids per run", run: governed({ ...base, cuts: 'tightest' }) },
];
const renamedScores = new Map<string, Score[]>(compactionVariants.map((v) => [v.name, []]));
for (const s of sessions) {
  const messages = rename(s.messages);
  for (const v of compactionVariants) renamedScores.get(v.name)!.push(score(v.run(messages)));
}
console.log('\nwith the tools renamed to nanobot\'s compactable ones (in-flight compaction applies):');
const oldRenamed = renamedScores.get("'tightest', ids per run")!.reduce((n, x) => n + x.cost, 0);
for (const v of compactionVariants) {
  const sc = renamedScores.get(v.name)!;
  const cost = sc.reduce((n, x) => n + x.cost, 0);
  console.log(`${v.name.padEnd(26)}${mean(sc.map((x) => x.reuse)).toFixed(3).padStart(12)}${Math.min(...sc.map((x) => x.reuse)).toFixed(3).padStart(11)}${cost.toFixed(3).padStart(10)}${`${(cost / oldRenamed).toFixed(3)}×`.padStart(20)}${String(sc.reduce((n, x) => n + x.over, 0)).padStart(13)}`);
}
console.log(`(whole run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
