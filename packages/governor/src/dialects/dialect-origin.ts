// Where a model message (or tool call, or content part) came from in a dialect's history. The
// record rides on the object under a symbol key: object spread copies own symbol properties,
// so a message the governor rewrites with `{ ...msg, content }` still knows its origin, while
// JSON (the token estimate, the report) never sees it. Identity with `origin.message` tells an
// untouched message from a rewritten one.

const ORIGIN: unique symbol = Symbol('nanobot.governor.dialectOrigin');

type Tagged<O> = { [ORIGIN]?: O };

/** Attaches `origin` to `target` (a fresh object the dialect built) and returns `target`. */
export function tagOrigin<T extends object, O>(target: T, origin: O): T {
  (target as Tagged<O>)[ORIGIN] = origin;
  return target;
}

/** The origin attached by {@link tagOrigin}, if any (copied along by object spread). */
export function originOf<O>(value: unknown): O | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Tagged<O>)[ORIGIN];
}
