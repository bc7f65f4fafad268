// The tool side of the portable core, as it runs inside each runtime: `@nanobot/schema`'s
// argument casting and validation (reference cases), full JSON Schema validation (ajv, loaded
// lazily), message parsing (zod, loaded lazily), and `@nanobot/tools-core`'s `defineTool` as its
// README uses it. Input: the cases as JSON text. Output: one line per case (programs/encode.mjs).
import { castParams, parseMessages, validateJsonSchemaValue, validateParams } from '@nanobot/schema';
import { createToolContext, defineTool, toolResult } from '@nanobot/tools-core';
import { z } from 'zod';
import { capture, captureAsync, resultsText, revive } from './encode.mjs';

/** A JSON Schema whose keywords (pattern, format, oneOf, const) need the full validator. */
const FULL_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', pattern: '^/[a-z/]+$' },
    when: { type: 'string', format: 'date-time' },
    mode: { oneOf: [{ const: 'read' }, { const: 'write' }] },
  },
  required: ['path'],
  additionalProperties: false,
};

const FULL_ARGS = [
  { path: '/tmp/x', when: '2026-11-01T10:00:00Z', mode: 'read' },
  { path: 'relative', when: 'yesterday', mode: 'append' },
  { mode: 'write', extra: 1 },
];

/** The tools-core README's tool, defined with zod. */
function weatherTool() {
  return defineTool({
    name: 'weather',
    description: 'Current weather for a city',
    readOnly: true,
    parameters: z.object({ city: z.string().min(2).describe('City name'), unit: z.enum(['C', 'F']).default('C') }),
    async execute({ city, unit }, ctx) {
      if (city === 'Atlantis') return toolResult.error(`Error: no station in ${city}`);
      return `21°${unit} and sunny in ${city} (asked from ${ctx.channel}:${ctx.chatId})`;
    },
  });
}

/** A tool defined with a JSON Schema (as MCP servers and plugins give them). */
function fileTool() {
  return defineTool({ name: 'touch', description: 'Touches a file', parameters: FULL_SCHEMA, execute: (args) => ({ touched: args.path }) });
}

async function toolCases() {
  const out = [];
  const weather = weatherTool();
  out.push({ id: 'tools-core weather toSchema', out: capture(() => weather.toSchema()) });
  out.push({ id: 'tools-core weather concurrencySafe', out: capture(() => weather.concurrencySafe) });
  for (const args of [{ city: 'Oslo' }, { city: 'O' }, { city: 'Oslo', unit: 'K' }, {}]) {
    out.push({ id: `tools-core weather parseArgs ${JSON.stringify(args)}`, out: capture(() => weather.parseArgs(args)) });
  }
  for (const city of ['Oslo', 'Atlantis']) {
    // As the README calls it: the default context (its workspace is the current directory).
    out.push({ id: `tools-core weather execute ${city}`, out: await captureAsync(() => weather.execute({ city, unit: 'C' }, createToolContext({ chatId: '42' }))) });
  }
  const touch = fileTool();
  out.push({ id: 'tools-core touch toSchema', out: capture(() => touch.toSchema()) });
  for (const args of FULL_ARGS) {
    out.push({ id: `tools-core touch validateParams ${JSON.stringify(args)}`, out: capture(() => touch.validateParams(args)) });
    out.push({ id: `schema validateParams ${JSON.stringify(args)}`, out: capture(() => validateParams(FULL_SCHEMA, args)) });
  }
  return out;
}

/** Runs the cases of `inputText` (`{ cases, sessions }` from src/subset.mjs). */
export async function run(inputText) {
  const input = JSON.parse(inputText, revive);
  const results = [];
  for (const c of input.cases) {
    const fn = c.fn.split('.').pop();
    let out;
    if (fn === 'cast_params') out = capture(() => castParams(c.config.parameters, c.input.params));
    else if (fn === 'validate_json_schema_value') out = capture(() => validateJsonSchemaValue(c.input.value, c.input.schema, c.input.path));
    else out = { error: `harness: no runner for ${c.fn}` };
    results.push({ id: `${c.file} ${c.name}`, out });
  }
  for (const s of input.sessions) results.push({ id: `schema parseMessages ${s.name}`, out: capture(() => parseMessages(s.messages).length) });
  results.push(...(await toolCases()));
  return { text: resultsText(results), probe: {} };
}
