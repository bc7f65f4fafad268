// The replayed view of a transcript (its stored failure rows as the model reads them, see
// `replayFailures`) kept as a history the agent's Governor owns (issue 31). Replaying and
// governing the whole transcript as an array on every request costs a pass over it each time
// (~10 ms at 100,000 messages for the replay alone); a transcript only grows during a run, so
// the view replays only the rows appended since the last request and hands the Governor a
// `GovernorHistory`, which it governs without a pass over the earlier messages.
//
// Soundness: the view is rebuilt from the transcript whenever it cannot show, cheaply, that the
// transcript only grew. The runner counts the rows it appends (the one way it changes a run's
// transcript), so the same array as last time must be exactly as much longer as the runner
// appended (anything else inserted or removed a row: a hook writing to the read-only transcript)
// and still hold the first and the last row taken (a replaced tail); any other array (a new run,
// a transcript replaced) is compared slot by slot with the rows taken (one pointer pass, no
// replay) and extends them or is rebuilt. Not seen: a middle slot of the same array replaced in
// place by someone other than the runner, the length kept; hooks get the live transcript only
// read-only (`checkpoint`), and the Governor's own contract is the same (messages are values).
import { replayFailures, replayedRow, type Message } from '@nanobot/schema';
import type { Governor, GovernorHistory } from '@nanobot/governor';

/** Rows handed to one `append` call at most. */
const APPEND_CHUNK = 4096;

/** A replayed transcript as a Governor-owned history, kept in step with the transcript. */
export class ReplayedHistory {
  readonly #governor: Governor;
  #history: GovernorHistory<Message> | null = null;
  /** The stored rows taken so far, in order (own copy: another array is compared with it). */
  #rows: Message[] = [];
  /** The array the rows were last taken from, and its owner's append count then. */
  #list: readonly Message[] | null = null;
  #appends = 0;
  #rebuilds = 0;

  constructor(governor: Governor) {
    this.#governor = governor;
  }

  /** How many times the view was built from a whole transcript (the first time included). */
  get rebuilds(): number {
    return this.#rebuilds;
  }

  /**
   * The history of `transcript` replayed: holds `replayFailures(transcript)` slot for slot (the
   * same objects). `appends` counts the rows the transcript's owner ever appended to it (any
   * running count: only its growth between two calls on the same array matters). Appends the
   * rows added since the last call, or rebuilds (see the file comment). Never mutates
   * `transcript`; the history is the Governor's: govern it, never append to it.
   */
  sync(transcript: readonly Message[], appends: number): GovernorHistory<Message> {
    const rows = this.#rows;
    const taken = rows.length;
    const appended = appends - this.#appends;
    this.#appends = appends;
    if (this.#history === null || !this.#extends(transcript, taken, appended)) return this.#rebuild(transcript);
    if (transcript.length > taken) {
      let added: Message[] = [];
      for (let i = taken; i < transcript.length; i++) {
        const message = transcript[i];
        rows.push(message);
        added.push(replayedRow(message));
        // Appended in chunks: a spread of a long extension would exceed the engine's argument limit.
        if (added.length === APPEND_CHUNK) {
          this.#history.append(...added);
          added = [];
        }
      }
      if (added.length > 0) this.#history.append(...added);
    }
    this.#list = transcript;
    return this.#history;
  }

  /** Whether `transcript` starts with the `taken` rows already in the view (`appended`: rows its owner appended since). */
  #extends(transcript: readonly Message[], taken: number, appended: number): boolean {
    const rows = this.#rows;
    if (transcript.length < taken) return false;
    if (transcript === this.#list) {
      if (transcript.length !== taken + appended) return false;
      return taken === 0 || (transcript[taken - 1] === rows[taken - 1] && transcript[0] === rows[0]);
    }
    if (taken === 0) return true;
    // Another array (a new run's copy of its initial messages, a replaced transcript): only a
    // slot-by-slot comparison shows it holds the same rows.
    for (let i = 0; i < taken; i++) if (!Object.is(transcript[i], rows[i])) return false;
    return true;
  }

  #rebuild(transcript: readonly Message[]): GovernorHistory<Message> {
    this.#rebuilds += 1;
    this.#rows = transcript.slice();
    this.#list = transcript;
    this.#history = this.#governor.createHistory(replayFailures(transcript));
    return this.#history;
  }
}
