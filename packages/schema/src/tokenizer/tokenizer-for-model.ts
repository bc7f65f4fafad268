import type { TokenizerName } from '../models/model-info.js';
import { lookupModelLimits, type LookupModelOptions } from '../models/model-table.js';

/**
 * The tokenizer that counts `model`'s tokens: the model table's entry (your `overrides`
 * first), else `'cl100k_base'` — the encoding of older OpenAI models and our count for
 * unknown ones. Pure.
 */
export function tokenizerForModel(model: string | undefined, options: LookupModelOptions = {}): TokenizerName {
  return lookupModelLimits(model, options)?.tokenizer ?? 'cl100k_base';
}
