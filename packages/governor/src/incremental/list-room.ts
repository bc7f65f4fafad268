// Room for the lists a memo keeps per slot of a history. V8 allocates an array of more than
// 16,384 8-byte slots (128 KiB, its largest regular object) in the large-object space, whose
// objects the collector never copies; a smaller one in the young generation, where the next two
// collections copy it whole (kept, then promoted), visiting every slot. An array grown by the
// engine's own rule (half again) went from ~10,400 slots to ~15,600 (124 KB), just below that
// size, and a 10,000-message history's memo lists all grew in the same few calls: those
// collections promoted ~0.8 MB each and took ~3x longer (Mistral: 11 in 4,000 grown calls,
// ~10 µs a call). So a list that must grow past half of it grows to it at once instead.

/** Slots of the smallest array V8 allocates outside its young generation (see the file comment). */
export const LARGE_OBJECT_SLOTS = 16_384;

/** The capacity a list holding `n` slots grows to: half again, or {@link LARGE_OBJECT_SLOTS} when that is past half of it. */
export function grownCapacity(n: number): number {
  const capacity = Math.max(16, n + (n >> 1));
  return capacity < LARGE_OBJECT_SLOTS && capacity * 2 > LARGE_OBJECT_SLOTS ? LARGE_OBJECT_SLOTS : capacity;
}

/**
 * Whether a memo's own list of `n` slots should be replaced by {@link roomyCopy} (once): the
 * engine would grow it to less than {@link LARGE_OBJECT_SLOTS}, and keeps the room of a list at
 * least half that long (it gives back the room of a shorter one).
 */
export function needsRoom(n: number): boolean {
  return 2 * n > LARGE_OBJECT_SLOTS && n + (n >> 1) + 16 < LARGE_OBJECT_SLOTS;
}

/**
 * A copy of `list` (see {@link needsRoom}) whose array has {@link LARGE_OBJECT_SLOTS} slots: it
 * grows by appending in place to that size, then by the engine's rule in the large-object space.
 */
export function roomyCopy<T>(list: readonly T[]): T[] {
  const copy = new Array<T>(LARGE_OBJECT_SLOTS);
  for (let i = 0; i < list.length; i++) copy[i] = list[i];
  copy.length = list.length;
  return copy;
}

/** A memo that owns a list it hands on and grows by appending (`roomed`: the copy {@link giveRoom} made of it, if any). */
export interface RoomyList<T> {
  out: T[] | null;
  roomed: T[] | null;
}

/**
 * Replaces `memo.out` by its {@link roomyCopy} when it {@link needsRoom} and is not that copy
 * already: at most once per list, so later steps copying it see a new array once (their
 * comparisons then pass over it once). Contract: mutates `memo` only.
 */
export function giveRoom<T>(memo: RoomyList<T>): void {
  const out = memo.out;
  if (out !== null && out !== memo.roomed && needsRoom(out.length)) memo.out = memo.roomed = roomyCopy(out);
}
