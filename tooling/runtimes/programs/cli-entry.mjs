// Entry for the runtimes that run a user's ESM directly from node_modules (Node, Bun, Deno):
// `<runtime> programs/cli-entry.mjs <input-dir> <program>...` runs each program on
// `<input-dir>/<program>.json` in this one process (the tokenizer's ranks load once) and prints
// `{ <program>: envelope }` as JSON on stdout. Only this entry uses runtime APIs (node:fs and
// node:process, which all three provide); the programs themselves use none.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { runProgram } from './programs.mjs';

const [inputDir, ...names] = process.argv.slice(2);
const out = {};
for (const name of names) {
  const started = Date.now();
  out[name] = { ...(await runProgram(name, readFileSync(`${inputDir}/${name}.json`, 'utf8'))), ms: Date.now() - started };
}
process.stdout.write(JSON.stringify(out));
