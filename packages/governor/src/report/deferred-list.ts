// Report lists built when first read. A memo that keeps a step's entries across calls (every
// tool-call id Mistral renames: ~6,000 entries on a 10,000-message history, twice) would
// otherwise copy all of them into every call's report, though a runner rarely reads them. The
// list is an own enumerable property, so JSON and structural equality see a plain list: an
// accessor until first read, then (where the object allows) a plain data property again.

/** Builds the (frozen) list of a deferred property; called at most once per definition, must not throw. */
export type ListBuilder<T> = () => readonly T[];

/** The descriptor of a data property holding `value`, as an object literal defines it. */
function dataProperty(value: unknown): PropertyDescriptor {
  return { value, writable: true, enumerable: true, configurable: true };
}

/**
 * Defines `target[key]` as the list `build` returns, built on first read (by any object the
 * property is copied to with {@link copyListProperty}: they all get the same list). Assigning
 * the property replaces it with the assigned value, as for a data property.
 */
export function defineDeferredList<T>(target: object, key: string, build: ListBuilder<T>): void {
  let list: readonly T[] | null = null;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get(this: object): readonly T[] {
      list ??= build();
      // A data property from now on, unless the object was frozen or sealed meanwhile.
      Reflect.defineProperty(this, key, dataProperty(list));
      return list;
    },
    set(this: object, value: unknown): void {
      Reflect.defineProperty(this, key, dataProperty(value));
    },
  });
}

/**
 * Gives `to` the list property `key` of `from` without reading it: a deferred list stays
 * deferred (and shared), a plain list is frozen and set. `to` must already have `key` (its
 * place among the properties is kept, so JSON lists the keys in the same order).
 */
export function copyListProperty(to: object, from: object, key: string): void {
  const d = Object.getOwnPropertyDescriptor(from, key);
  if (d !== undefined && d.get !== undefined) {
    const accessor: PropertyDescriptor = { get: d.get, enumerable: true, configurable: true };
    if (d.set !== undefined) accessor.set = d.set;
    Object.defineProperty(to, key, accessor);
  } else Object.defineProperty(to, key, dataProperty(Object.freeze((d?.value ?? []) as unknown[])));
}

/** Whether `target[key]` is a list or a deferred one (without reading it: nothing is built). */
export function hasList(target: object, key: string): boolean {
  const d = Object.getOwnPropertyDescriptor(target, key);
  return d !== undefined && (d.get !== undefined || d.value !== undefined);
}
