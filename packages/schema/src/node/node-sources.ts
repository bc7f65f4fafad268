// What only Node (and Bun and Deno, which resolve the `node` export condition too) can do, wired
// in by the Node entry (`@nanobot/schema/node`, which `@nanobot/schema` resolves to there):
// - the tokenizer's ranks read synchronously from node_modules on the first count, so counting
//   needs no `await loadTokenizer()` (elsewhere the ranks are a dynamic import);
// - ajv as the full JSON Schema validator where code generation is allowed, required on the
//   first validation (it costs ~100 ms to import; elsewhere the interpreter validates).
// Nothing here runs in the main entry: it is the only place the package uses createRequire.
import { createRequire } from 'node:module';
import { setSyncRankSource, type SyncRankSource } from '../tokenizer/encoder-store.js';
import { setJsonSchemaBackend } from '../json-schema/full-json-schema.js';
import { AJV_OPTIONS, ajvBackend, type AjvLike } from '../json-schema/ajv-backend.js';
import type { JsonSchemaBackend, JsonSchemaDraft } from '../json-schema/json-schema-backend.js';

/** `require` relative to this package, for its own dependencies. */
export const requireHere = createRequire(import.meta.url);

/** The ranks from node_modules, synchronously (js-tiktoken's CommonJS build). */
export const nodeRankSource: SyncRankSource = (encoding) => requireHere(`js-tiktoken/ranks/${encoding}`);

setSyncRankSource(nodeRankSource);

function codeGenerationAllowed(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false; // e.g. node --disallow-code-generation-from-strings
  }
}

const instances = new Map<JsonSchemaDraft, AjvLike>();

/** ajv, required on first use, one instance per draft with ajv-formats. */
export const nodeAjvBackend: JsonSchemaBackend = ajvBackend((draft) => {
  let ajv = instances.get(draft);
  if (ajv === undefined) {
    const Ajv = (requireHere(draft === '2020' ? 'ajv/dist/2020' : 'ajv') as { default: new (options: object) => AjvLike }).default;
    const addFormats = (requireHere('ajv-formats') as { default: (ajv: AjvLike) => void }).default;
    ajv = new Ajv(AJV_OPTIONS);
    addFormats(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
});

if (codeGenerationAllowed()) setJsonSchemaBackend(nodeAjvBackend);
