// The Governor's DerivationCache: what rules derive from a message (a rewritten copy, a verdict,
// a fingerprint) kept per object and key, weakly (gone with the object). The same stored
// message then gives the same derived object on every request, so token estimates stay cached
// and the prompt prefix byte-stable.
import type { DerivationCache } from '../steps/derivation-cache.js';

/** A {@link DerivationCache} held weakly by the objects derived from. */
export class WeakDerivations implements DerivationCache {
  readonly #byObject = new WeakMap<object, Map<unknown, unknown>>();

  derive<T>(from: object, key: unknown, make: () => T): T {
    let byKey = this.#byObject.get(from);
    if (byKey === undefined) {
      byKey = new Map();
      this.#byObject.set(from, byKey);
    } else {
      // One lookup on a hit (derived values are objects or booleans; undefined only when kept so).
      const hit = byKey.get(key);
      if (hit !== undefined || byKey.has(key)) return hit as T;
    }
    const value = make();
    byKey.set(key, value);
    return value;
  }
}
