// The governor's conformance subset, as it runs inside each runtime: the cases chosen by
// src/subset.mjs (reference fixtures) and a few recorded sessions governed at 8k and 32k.
// Input: the subset as JSON text. Output: one line per case (programs/encode.mjs), compared byte
// for byte with Node 20's. Only public entry points: what a user of the packed packages can call.
import {
  applyToolResultBudget,
  backfillMissingToolResults,
  checkLegality,
  compactInflightOverflow,
  dropOrphanToolResults,
  enforceRoleAlternation,
  govern,
  inputBudget,
  MemoryArtifactStore,
  normalizeToolResult,
  snipHistory,
  stripMalformedToolCalls,
  stripPlaceholderAssistantMessages,
} from '@nanobot/governor';
import { countWithEncoding, encodingLoaded, estimateMessageTokens, estimatePromptTokens, estimatePromptTokensChain, loadTokenizer, referenceEstimator, tokenizerLoaded } from '@nanobot/schema';
import { capture, resultsText, revive } from './encode.mjs';

const num = (v) => (v === true ? 1 : v === false ? 0 : typeof v === 'number' ? v : null);

/**
 * A fixture's governance `config` as governor options, as the governor's conformance test maps it
 * (its test-support/governance-config.ts): a copy, because this program runs against the packed
 * packages, where no test support is shipped.
 */
function optionsFromConfig(config) {
  return {
    contextWindowTokens: num(config.context_window_tokens),
    contextBlockLimit: num(config.context_block_limit),
    maxOutputTokens: num(config.max_tokens),
    providerMaxTokens: num(config.provider_max_tokens),
    maxToolResultChars: num(config.max_tool_result_chars) ?? 16000,
    inflightStartIndex: num(config.inflight_start_index) ?? 0,
    tools: config.tool_definitions ?? [],
    sessionKey: config.session_key ?? null,
  };
}

/**
 * One fixture case: the reference-compatible result (`reference`, compared with the fixture's
 * `expected` on Node 20 as a check that the harness calls the governor right) and, where the
 * function has defaults of its own, the default result (`fixed`).
 */
function runCase(c) {
  const o = optionsFromConfig(c.config ?? {});
  const msgs = c.input.messages;
  const ids = () => new Set(c.input.compacted_tool_call_ids ?? []);
  const fn = c.fn.replace(/\[sequence\]$/, '').split('.').pop();
  switch (fn) {
    case 'strip_placeholder_assistant_messages': return { reference: capture(() => stripPlaceholderAssistantMessages(msgs)) };
    case 'strip_malformed_tool_calls': return { reference: capture(() => stripMalformedToolCalls(msgs)) };
    case 'drop_orphan_tool_results': return { reference: capture(() => dropOrphanToolResults(msgs)) };
    case 'backfill_missing_tool_results': return { reference: capture(() => backfillMissingToolResults(msgs)) };
    case 'apply_tool_result_budget': return { reference: capture(() => applyToolResultBudget(msgs, { maxToolResultChars: o.maxToolResultChars })) };
    case 'input_budget': return { reference: capture(() => inputBudget(o)) };
    case 'normalize_tool_result': return { reference: capture(() => normalizeToolResult(c.input.tool_call_id, c.input.tool_name, c.input.result, { maxToolResultChars: o.maxToolResultChars })) };
    case 'snip_history': {
      const budget = inputBudget(o);
      return {
        reference: capture(() => snipHistory(msgs, { budget, tools: o.tools, compat: 'reference', estimator: referenceEstimator, cuts: 'tightest' }).messages),
        fixed: capture(() => snipHistory(msgs, { budget, tools: o.tools }).messages),
      };
    }
    case 'compact_inflight_overflow': {
      const budget = inputBudget(o);
      return {
        reference: capture(() => {
          const before = ids();
          const r = compactInflightOverflow(msgs, { budget, tools: o.tools, inflightStartIndex: o.inflightStartIndex, compactedToolCallIds: before });
          return { messages: r.messages, compacted: [...new Set([...before, ...r.newlyCompacted])].sort() };
        }),
      };
    }
    case 'prepare_for_model': {
      if (c.input.turns) {
        // Runner-style sequence: growing in-flight histories sharing one compacted-id set.
        const sequence = (compat) => capture(() => {
          const shared = new Set();
          return c.input.turns.map((turn) => {
            const r = govern(turn, { ...o, compat, compactedToolCallIds: shared, ...(compat === 'reference' ? { estimator: referenceEstimator } : {}) });
            return { messages: r.messages, compacted: [...shared].sort() };
          });
        });
        return { reference: sequence('reference'), fixed: sequence('fixed') };
      }
      return {
        reference: capture(() => {
          const set = ids();
          const r = govern(msgs, { ...o, compat: 'reference', cuts: 'tightest', compactedToolCallIds: set, estimator: referenceEstimator });
          return { messages: r.messages, compacted: [...set].sort() };
        }),
        // The defaults: the provider-view count, stable cuts, a request legal for both APIs.
        fixed: capture(() => {
          const set = ids();
          const r = govern(msgs, { ...o, compactedToolCallIds: set });
          return { messages: r.messages, compacted: [...set].sort(), report: r.report, cutPlan: r.cutPlan };
        }),
      };
    }
    case '_enforce_role_alternation':
      return { reference: capture(() => enforceRoleAlternation(msgs, { compat: 'reference' })), fixed: capture(() => enforceRoleAlternation(msgs)) };
    case 'estimate_message_tokens': return { reference: capture(() => estimateMessageTokens(c.input.message)) };
    case 'estimate_prompt_tokens': return { reference: capture(() => estimatePromptTokens(c.input.messages, c.input.tools)) };
    case 'estimate_prompt_tokens_chain': return { reference: capture(() => estimatePromptTokensChain(null, c.input.messages, c.input.tools)) };
  }
  return { reference: { error: `harness: no runner for ${c.fn}` } };
}

/**
 * The governed sessions: each recorded session at 8k (gpt-4o: o200k counts) and 32k (a Claude
 * model, then the default cl100k count), offloading through a MemoryArtifactStore, with the
 * run's in-flight part starting halfway, as a runner would call it.
 */
export const SESSION_CONFIGS = {
  '8k gpt-4o': { model: 'gpt-4o', contextWindowTokens: 8_000, maxOutputTokens: 1_024, maxToolResultChars: 2_000 },
  '32k claude-sonnet-4-5': { model: 'claude-sonnet-4-5', contextWindowTokens: 32_000, maxOutputTokens: 4_096, maxToolResultChars: 4_000 },
  '32k default count': { contextWindowTokens: 32_000, maxOutputTokens: 4_096, maxToolResultChars: 4_000 },
};

function runSession(name, history, config) {
  const store = new MemoryArtifactStore();
  const r = govern(history, { ...config, artifactStore: store, sessionKey: name, inflightStartIndex: Math.floor(history.length / 2), compactedToolCallIds: new Set() });
  const saved = /** @type {string[]} */ (r.report.steps.flatMap((s) => [...s.toolResults.map((t) => t.location), ...s.added.map((m) => m.location)]).filter(Boolean));
  return {
    messages: r.messages,
    report: r.report,
    cutPlan: r.cutPlan,
    legality: checkLegality(r.messages, { target: 'any' }),
    // What the store holds: a lost artifact (or one saved under another name) shows up here.
    artifacts: saved.map((location) => [location, store.read(location)?.length ?? null]),
  };
}

/**
 * Runs the subset. `inputText` is the JSON src/subset.mjs wrote. Returns `{ text, probe }`:
 * `text` is compared byte for byte; `probe` (whether the tokenizer's ranks loaded) only explains
 * a difference.
 */
export async function run(inputText) {
  const input = JSON.parse(inputText, revive);
  // What the schema's README asks of every runtime that cannot read the ranks synchronously
  // (Workers, edge functions, browsers); in Node, Bun and Deno it changes nothing but the moment
  // the ranks load. A count without it throws TokenizerNotLoadedError (never counts bytes).
  await loadTokenizer(['cl100k_base', 'o200k_base']);
  const results = [];
  // Token counts first: when a runtime counts wrongly, the first differing case says so plainly.
  for (const s of input.sessions) {
    results.push({
      id: `tokens ${s.name}`,
      cl100k: capture(() => estimatePromptTokens(s.messages, null)),
      o200k: capture(() => countWithEncoding('o200k_base', JSON.stringify(s.messages))),
    });
  }
  for (const c of input.cases) results.push({ id: `${c.file} ${c.name}`, ...runCase(c) });
  for (const s of input.sessions) {
    for (const [label, config] of Object.entries(SESSION_CONFIGS)) {
      results.push({ id: `session ${s.name} @ ${label}`, out: capture(() => runSession(s.name, s.messages, config)) });
    }
  }
  return { text: resultsText(results), probe: { cl100kLoaded: tokenizerLoaded(), o200kLoaded: encodingLoaded('o200k_base') } };
}
