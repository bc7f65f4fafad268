// Where a model message (or tool call, or content part) came from in a dialect's history. The
// record rides on the object under a symbol key: object spread copies own symbol properties,
// so a message the governor rewrites with `{ ...msg, content }` still knows its origin, while
// JSON (the token estimate, the report) never sees it. Identity with the message the dialect
// built tells an untouched message from a rewritten one. Each dialect may take its own tag
// (its own key), so one dialect never reads another's records.

/** Reads and writes one dialect's origin records (see {@link createOriginTag}). */
export interface OriginTag<O> {
  /** Attaches `origin` to `target` (a fresh object the dialect built) and returns `target`. */
  tag<T extends object>(target: T, origin: O): T;
  /** The origin attached by {@link OriginTag.tag}, if any (copied along by object spread). */
  of(value: unknown): O | undefined;
}

/** A tag of its own (a fresh symbol key named `name`) for a dialect's origin records. */
export function createOriginTag<O>(name: string): OriginTag<O> {
  const key: unique symbol = Symbol(`nanobot.dialect.origin:${name}`);
  type Tagged = { [key]?: O };
  return Object.freeze({
    tag<T extends object>(target: T, origin: O): T {
      (target as Tagged)[key] = origin;
      return target;
    },
    of(value: unknown): O | undefined {
      if (value === null || typeof value !== 'object') return undefined;
      return (value as Tagged)[key];
    },
  });
}

/** The governor's own dialects' tag (anthropic, responses). */
const GOVERNOR_DIALECTS: OriginTag<unknown> = createOriginTag<unknown>('governor');

/** Attaches `origin` to `target` under the governor's own dialects' tag and returns `target`. */
export function tagOrigin<T extends object, O>(target: T, origin: O): T {
  return GOVERNOR_DIALECTS.tag(target, origin);
}

/** The origin attached by {@link tagOrigin}, if any (copied along by object spread). */
export function originOf<O>(value: unknown): O | undefined {
  return GOVERNOR_DIALECTS.of(value) as O | undefined;
}
