// The Governor's DerivationCache: what rules derive from a message (a rewritten copy, a verdict,
// a fingerprint) kept per object and key, weakly (gone with the object). The same stored
// message then gives the same derived object on every request, so token estimates stay cached
// and the prompt prefix byte-stable.
import type { DerivationCache } from '../steps/derivation-cache.js';

/**
 * Keys an object's values are kept under in a flat list before they move to a Map. Most
 * messages have one or two (a verdict; a renamed copy, a merge), where a Map and its table took
 * ~180 bytes a message and a list of pairs takes ~60, searched in a few comparisons: what one
 * Governor kept for a 10,000-message conversation fell by a quarter. A message derived under
 * many keys (compacted under many budgets) gets a Map, so a lookup stays short.
 */
const PAIRS_BEFORE_MAP = 8;

/** An object's derived values: `[key, value, key, value, …]`, or a Map once there are many. */
type Derived = unknown[] | Map<unknown, unknown>;

/** A {@link DerivationCache} held weakly by the objects derived from. */
export class WeakDerivations implements DerivationCache {
  readonly #byObject = new WeakMap<object, Derived>();

  derive<T>(from: object, key: unknown, make: () => T): T {
    const derived = this.#byObject.get(from);
    if (derived === undefined) {
      const value = make();
      this.#byObject.set(from, [key, value]);
      return value;
    }
    if (derived instanceof Map) {
      // One lookup on a hit (derived values are objects or booleans; undefined only when kept so).
      const hit = derived.get(key);
      if (hit !== undefined || derived.has(key)) return hit as T;
      const value = make();
      derived.set(key, value);
      return value;
    }
    // Keys compare as a Map compares them (SameValueZero: the same object, or equal strings).
    for (let i = 0; i < derived.length; i += 2) if (derived[i] === key || (derived[i] !== derived[i] && key !== key)) return derived[i + 1] as T;
    const value = make();
    const n = derived.length;
    if (n < 2 * PAIRS_BEFORE_MAP) {
      // A list of the exact length, not a push: growing a short array makes room for ~16 more
      // slots, more than the Map it replaces.
      const grown = new Array<unknown>(n + 2);
      for (let i = 0; i < n; i++) grown[i] = derived[i];
      grown[n] = key;
      grown[n + 1] = value;
      this.#byObject.set(from, grown);
    } else {
      const map = new Map<unknown, unknown>();
      for (let i = 0; i < n; i += 2) map.set(derived[i], derived[i + 1]);
      map.set(key, value);
      this.#byObject.set(from, map);
    }
    return value;
  }
}
