import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ModelFactsStore, StoredModelFacts } from '@nanobot/providers';

/** The file name of the model facts beside the sessions (`<sessionsDir>/model-facts.json`). */
export const MODEL_FACTS_FILE = 'model-facts.json';

/** Where an agent whose sessions live in `sessionsDir` keeps its model facts. */
export function defaultModelFactsFile(sessionsDir: string): string {
  return join(sessionsDir, MODEL_FACTS_FILE);
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * The models endpoints' answers in one JSON file (`{ "version": 1, "models": { key: { contextWindow,
 * maxOutput, fetchedAt } } }`), for `ModelFactsCache` of @nanobot/providers. A missing file is
 * empty; an unreadable one or one that is not this JSON rejects (the cache says so and fetches,
 * and its next write replaces the broken file). Each write reads the file again and adds its
 * entry, written to a temporary file and renamed, so a reader never sees half a file and two
 * processes lose at most an entry of a cache (re-fetched later), never the file.
 */
export class JsonModelFactsStore implements ModelFactsStore {
  constructor(readonly path: string) {}

  async read(): Promise<Record<string, StoredModelFacts>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return {};
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`${this.path} is not JSON (${(error as Error).message})`, { cause: error });
    }
    const models = parsed !== null && typeof parsed === 'object' ? (parsed as { models?: unknown }).models : undefined;
    if (models === null || typeof models !== 'object' || Array.isArray(models)) throw new Error(`${this.path} has no "models" object`);
    return models as Record<string, StoredModelFacts>;
  }

  async write(key: string, entry: StoredModelFacts): Promise<void> {
    const models = await this.read().catch(() => ({}) as Record<string, StoredModelFacts>);
    models[key] = entry;
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${randomUUID()}.tmp`;
    try {
      await writeFile(tmp, `${JSON.stringify({ version: 1, models }, null, 2)}\n`);
      await rename(tmp, this.path);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }
}
