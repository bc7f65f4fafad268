// Simulated Anthropic prompt cache over the 16 recorded sessions: every point where a request
// would be sent (before each assistant message) is governed (32k and 200k windows) and turned
// into a Messages API body, once with the planned breakpoints (`report.cacheBoundaries`) and
// once with the fixed rule (system + second-to-last turn + tools). The cache model follows the
// docs: a breakpoint writes the prefix ending at its block; a request reads the longest prefix
// written by an earlier request that ends at one of its breakpoints or up to 20 blocks before
// one; reads cost 0.1×, writes (up to the last breakpoint) 1.25×, the rest 1×. Sizes are JSON
// characters of the blocks (without `cache_control`), so only the ratios matter. The minimum
// cacheable length and the 5-minute lifetime are ignored (requests assumed back to back).
// Prints per session and overall: input cost of each placement relative to no caching, and the
// planned/fixed ratio. Asserts nothing.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { govern } from '@nanobot/governor';
import type { CacheBreakpoints, Message, ToolDefinition } from '@nanobot/schema';
import { buildAnthropicParams } from '../src/anthropic-request.js';

type Rec = Record<string, unknown>;
const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const LOOKBACK = 20;
const WINDOWS = [32_000, 200_000];

/** Blocks in cache order (tools, system, message blocks): size, chained prefix key, marked or not. */
function blocks(body: Rec): { size: number; key: string; marked: boolean }[] {
  const list: Rec[] = [...((body.tools as Rec[] | undefined) ?? []), ...((body.system as Rec[] | undefined) ?? []), ...(body.messages as { role: string; content: Rec[] }[]).flatMap((m) => m.content.map((b, j) => (j === 0 ? { ...b, _turn: m.role } : b)))];
  let key = '';
  return list.map((b) => {
    const { cache_control: cc, ...rest } = b;
    const text = JSON.stringify(rest);
    key = createHash('sha1').update(key).update(text).digest('hex');
    return { size: text.length, key, marked: cc !== undefined };
  });
}

/** Cost of one request against `cache` (prefix keys written so far); adds what it writes. */
function cost(body: Rec, cache: Set<string>): { cost: number; full: number } {
  const bs = blocks(body);
  const prefix: number[] = [];
  let sum = 0;
  for (const b of bs) prefix.push((sum += b.size));
  const marks = bs.flatMap((b, i) => (b.marked ? [i] : []));
  let read = -1;
  for (const m of marks) for (let j = m; j >= Math.max(0, m - LOOKBACK + 1); j--) if (cache.has(bs[j].key) && j > read) read = j;
  const lastMark = marks.length > 0 ? marks[marks.length - 1] : -1;
  for (const m of marks) cache.add(bs[m].key);
  const readSize = read >= 0 ? prefix[read] : 0;
  const written = lastMark > read ? prefix[lastMark] - readSize : 0;
  return { cost: 0.1 * readSize + 1.25 * written + (sum - readSize - written), full: sum };
}

function toolsOf(messages: readonly Message[]): ToolDefinition[] {
  const names = new Set<string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) if (typeof c?.function?.name === 'string' && c.function.name) names.add(c.function.name);
  return [...names].sort().map((name) => ({ type: 'function', function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { input: { type: 'string' } } } } }));
}

const pct = (v: number) => v.toFixed(3).padStart(8);
console.log(`simulated Anthropic input cost (1 = no cache), planned vs fixed breakpoints, ${files.length} recorded sessions`);
console.log(`${'session'.padEnd(46)}${'reqs'.padStart(6)}${WINDOWS.map((w) => `${`${w / 1000}k fixed`.padStart(12)}${`planned`.padStart(9)}${`p/f`.padStart(8)}`).join('')}`);
const totals = WINDOWS.map(() => ({ fixed: 0, planned: 0, full: 0 }));
for (const file of files) {
  const messages = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
  const tools = toolsOf(messages);
  const points = messages.flatMap((m, i) => (m.role === 'assistant' && i > 0 ? [i] : []));
  const cells = WINDOWS.map((window, w) => {
    const caches = { fixed: new Set<string>(), planned: new Set<string>() };
    const sum = { fixed: 0, planned: 0, full: 0 };
    for (const end of points) {
      const { messages: copy, report } = govern(messages.slice(0, end), { tools, contextWindowTokens: window, target: 'anthropic' });
      const plan: CacheBreakpoints = report.cacheBoundaries;
      const fixed = cost(buildAnthropicParams({ messages: copy, tools }, 'claude'), caches.fixed);
      const planned = cost(buildAnthropicParams({ messages: copy, tools, cacheBreakpoints: plan }, 'claude'), caches.planned);
      sum.fixed += fixed.cost;
      sum.planned += planned.cost;
      sum.full += fixed.full;
    }
    totals[w].fixed += sum.fixed;
    totals[w].planned += sum.planned;
    totals[w].full += sum.full;
    return `${pct(sum.fixed / sum.full).padStart(12)}${pct(sum.planned / sum.full).padStart(9)}${(sum.planned / sum.fixed).toFixed(2).padStart(8)}`;
  });
  console.log(`${file.replace(/\.json$/, '').slice(0, 44).padEnd(46)}${String(points.length).padStart(6)}${cells.join('')}`);
}
console.log(`${'all'.padEnd(52)}${totals.map((t) => `${pct(t.fixed / t.full).padStart(12)}${pct(t.planned / t.full).padStart(9)}${(t.planned / t.fixed).toFixed(2).padStart(8)}`).join('')}`);
