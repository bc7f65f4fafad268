// What a dialect keeps between calls to convert a history to the governor's model and back
// (per source object, per converted list, per string), owned by one Governor, so a history
// governed again converts only its new part and hands the governor the same objects (its memos
// stay warm). A dialect without a Governor's memo converts with a fresh one each call.

/** One Governor's dialect caches, by name (each dialect names its own). */
export class DialectMemo {
  readonly #weak = new Map<string, WeakMap<object, unknown>>();
  readonly #strings = new Map<string, Map<string, unknown>>();

  /** The weak cache `name`: values kept per source object, gone with it. */
  weak<K extends object, V>(name: string): WeakMap<K, V> {
    let map = this.#weak.get(name);
    if (map === undefined) {
      map = new WeakMap();
      this.#weak.set(name, map);
    }
    return map as WeakMap<K, V>;
  }

  /** The value kept for `key` in the string cache `name` (at most `limit` kept), made by `make` once. */
  byString<V>(name: string, key: string, limit: number, make: () => V): V {
    let map = this.#strings.get(name);
    if (map === undefined) {
      map = new Map();
      this.#strings.set(name, map);
    }
    if (map.has(key)) return map.get(key) as V;
    if (map.size >= limit) map.delete(map.keys().next().value!);
    const value = make();
    map.set(key, value);
    return value;
  }
}
