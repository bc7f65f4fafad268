import type { ModelInfo } from './model-info.js';

/**
 * The first entry of `tables` (in order) whose pattern matches `model`, else the same for the
 * name after its last `/` (a `provider/` prefix the patterns do not name), else `undefined`. Pure.
 */
export function findModel(model: string | undefined, tables: readonly (readonly ModelInfo[])[]): ModelInfo | undefined {
  if (!model) return undefined;
  for (const table of tables) {
    for (const info of table) if (info.pattern.test(model)) return info;
  }
  const slash = model.lastIndexOf('/');
  return slash >= 0 ? findModel(model.slice(slash + 1), tables) : undefined;
}
