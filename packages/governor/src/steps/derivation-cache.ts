// How a rule keeps what it derives from a message (a rewritten copy, a verdict, a fingerprint)
// without holding state itself: the caller passes a cache, or none. With the Governor's cache
// (incremental/), the same message gives the same derived object on the next request, so token
// estimates and the prompt prefix stay warm; without one, every call derives afresh. Results
// are equal either way (property tests compare the two).

/** Keeps values derived from objects, per object and key. */
export interface DerivationCache {
  /**
   * The value `make` derives from `from` under `key`: made once and returned again while the
   * cache keeps it. `make` is called synchronously, at most once per (from, key) while cached;
   * it must be pure (its result a function of `from` and `key`).
   */
  derive<T>(from: object, key: unknown, make: () => T): T;
}

/** The cache of a plain call: nothing is kept, every value is made afresh. */
export const NO_CACHE: DerivationCache = Object.freeze({
  derive<T>(_from: object, _key: unknown, make: () => T): T {
    return make();
  },
});
