// `sideEffects` in @nanobot/schema's and @nanobot/governor's package.json lets bundlers drop
// modules a program does not use (ajv-formats and the JSON Schema helpers left the govern-only
// bundle with it). The one thing that must survive is the schema's Node entry registering its
// synchronous rank source and ajv at import: a Node bundle (a server app, a Lambda) of a program
// that only counts must still count synchronously and validate with ajv. Built from the sources
// (`source` condition) and from dist/, as a workspace app and an installed package bundle them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// The bundles run from inside @nanobot/schema's own node_modules, so the dependencies they leave
// external (and the ranks the Node entry requires) resolve as from an app's node_modules.
const schemaDir = join(import.meta.dirname, '..', '..', '..', 'packages', 'schema');
mkdirSync(join(schemaDir, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(schemaDir, 'node_modules', '.cache', 'nanobot-side-effects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRY = `import { countTokens, jsonSchemaBackendName } from '@nanobot/schema';
console.log(JSON.stringify({ count: countTokens('Counting the same way in every runtime.'), backend: jsonSchemaBackendName() }));
`;

async function bundleAndRun(name: string, conditions: string[]): Promise<unknown> {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, ENTRY);
  const outfile = join(dir, `${name}.out.mjs`);
  // Packages resolve from this package's node_modules (workspace links); their own dependencies
  // (js-tiktoken, ajv) stay external, as a server bundle leaves node_modules.
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', conditions, packages: 'bundle', external: ['js-tiktoken', 'js-tiktoken/*', 'ajv', 'ajv/*', 'ajv-formats', 'ajv-formats/*', 'zod', '@cfworker/json-schema'], nodePaths: [join(import.meta.dirname, '..', 'node_modules')], logLevel: 'silent' });
  return JSON.parse(execFileSync(process.execPath, [outfile], { encoding: 'utf8', cwd: dir }));
}

describe('a Node bundle of a program that only counts', () => {
  for (const [name, conditions] of [['sources', ['source']], ['dist', []]] as const) {
    it(`keeps the schema's Node registrations (${name}): synchronous counts, ajv`, async () => {
      expect(await bundleAndRun(name, [...conditions])).toEqual({ count: 9, backend: 'ajv' }) // js-tiktoken's cl100k count of the sentence;
    }, 60_000);
  }
});
