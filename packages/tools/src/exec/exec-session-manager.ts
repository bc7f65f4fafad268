import { randomUUID } from 'node:crypto';
import { ExecSession, type ExecSessionPoll, type ExecSessionSpec } from './exec-session.js';
import { ExecSessionLimitError } from './exec-session-limit-error.js';
import { ExecSessionNotFoundError } from './exec-session-not-found-error.js';

/** Options of `ExecSessionManager`. */
export interface ExecSessionManagerOptions {
  /** Sessions one session key (chat) may have at once (default 8, the reference's whole-agent cap). */
  readonly maxSessionsPerOwner?: number;
  /** Sessions of all chats together (default 64). */
  readonly maxSessions?: number;
  /** A session not polled for this long is killed at the next call (default 30 min, as the reference). */
  readonly idleTimeoutMs?: number;
  /** Clock in milliseconds (default `Date.now`); called synchronously, must not throw. */
  readonly now?: () => number;
}

/** What `write` does to a session before it reports. */
export interface ExecSessionWrite {
  readonly sessionId: string;
  /** The session key of the caller: a session of another key reads as unknown. */
  readonly owner: string;
  readonly chars?: string;
  readonly closeStdin?: boolean;
  readonly terminate?: boolean;
  /** How long to wait for the command to end before reporting (ignored with `waitFor`). */
  readonly yieldMs: number;
  readonly maxOutputChars: number;
  /** Text to wait for in new output, up to `waitTimeoutMs`. */
  readonly waitFor?: string;
  readonly waitTimeoutMs?: number;
  /** Ends the wait early (the session keeps running). */
  readonly signal?: AbortSignal;
}

/** A poll from `write`, with whether `waitFor` was seen. */
export interface ExecSessionWriteResult extends ExecSessionPoll {
  /** Set when `waitFor` was given. */
  readonly waitObserved?: boolean;
}

/** One line of `list`. */
export interface ExecSessionInfo {
  readonly sessionId: string;
  readonly command: string;
  readonly cwd: string;
  readonly elapsedS: number;
  readonly idleS: number;
  /** Seconds before the deadline kills it; Infinity without one. */
  readonly remainingS: number;
  /** Null while running. */
  readonly exitCode: number | null;
  /** Host pid of the spawned process (not shown to the model). */
  readonly pid: number | undefined;
}

/** Managers with live sessions, killed synchronously when the process exits. */
const live = new Set<ExecSessionManager>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: killAll only sends SIGKILLs.
  process.on('exit', () => {
    for (const manager of [...live]) manager.killAll();
  });
}

/**
 * The background exec sessions of one agent (`exec` with `yield_time_ms`, `write_stdin`,
 * `list_exec_sessions` share it). Every session belongs to the session key that started it and
 * is invisible to every other key. The embedder kills a chat's sessions with `killSession`
 * (on `/stop`, `/new`) and all of them with `killAll` (shutdown); any still alive when the
 * process exits are killed then too.
 */
export class ExecSessionManager {
  readonly #sessions = new Map<string, ExecSession>();
  readonly #perOwner: number;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(options: ExecSessionManagerOptions = {}) {
    this.#perOwner = options.maxSessionsPerOwner ?? 8;
    this.#max = options.maxSessions ?? 64;
    this.#idleMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Sessions of every owner, finished-but-unpolled ones included. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Starts `spec` as a session of `spec.owner` and polls it once for `yieldMs`. A session that
   * is over by then is forgotten (its id then reads as unknown). Throws `ExecSessionLimitError`
   * at the caps, the sandbox's error when it cannot box the command, and the spawn error
   * (e.g. a missing shell).
   */
  async start(spec: ExecSessionSpec, yieldMs: number, maxOutputChars: number, signal?: AbortSignal): Promise<{ sessionId: string; poll: ExecSessionPoll }> {
    this.#reapIdle();
    if (this.#countOf(spec.owner) >= this.#perOwner) throw new ExecSessionLimitError(this.#perOwner);
    if (this.#sessions.size >= this.#max) throw new ExecSessionLimitError(this.#max);
    let id = randomUUID().replace(/-/g, '').slice(0, 12);
    while (this.#sessions.has(id)) id = randomUUID().replace(/-/g, '').slice(0, 12);
    const session = new ExecSession(id, spec, this.#now);
    this.#add(session);
    const poll = await session.poll(yieldMs, maxOutputChars, {}, signal);
    if (session.spawnError) {
      this.#remove(id);
      throw session.spawnError;
    }
    if (poll.done) this.#remove(id);
    return { sessionId: id, poll };
  }

  /**
   * Writes, closes stdin, terminates and/or waits as asked, then reports the output since the
   * last poll. Throws `ExecSessionNotFoundError` for an id the caller does not own and an
   * `Error` with the reference's text (`session has already exited`, `session stdin is closed`)
   * when stdin cannot take the write.
   */
  async write(request: ExecSessionWrite): Promise<ExecSessionWriteResult> {
    this.#reapIdle();
    const session = this.#sessions.get(request.sessionId);
    if (!session || session.owner !== request.owner) throw new ExecSessionNotFoundError(request.sessionId);
    session.lastAccess = this.#now();
    if (request.chars) {
      const error = await session.write(request.chars);
      if (error) throw new Error(error);
    }
    let stdinClosed = false;
    if (request.closeStdin) {
      const error = session.closeStdin();
      if (error) throw new Error(error);
      stdinClosed = true;
    }
    if (request.terminate) await session.kill();
    const flags = { terminated: request.terminate ?? false, stdinClosed };
    let result: ExecSessionWriteResult;
    if (request.waitFor) {
      const observed = await session.waitForText(request.waitFor, request.waitTimeoutMs ?? 10_000, request.signal);
      // An exit seen while waiting: read the last output before reporting.
      if (!observed && session.done) await session.closed();
      result = { ...(await session.poll(0, request.maxOutputChars, flags)), waitObserved: observed };
    } else {
      result = await session.poll(request.yieldMs, request.maxOutputChars, flags, request.signal);
    }
    if (result.done) this.#remove(request.sessionId);
    return result;
  }

  /** The caller's sessions, by id. Read-only apart from killing idle sessions. */
  list(owner: string): ExecSessionInfo[] {
    this.#reapIdle();
    const now = this.#now();
    return [...this.#sessions.values()]
      .filter((s) => s.owner === owner)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => ({
        sessionId: s.id,
        command: s.command,
        cwd: s.cwd,
        elapsedS: Math.max(0, (now - s.startedAt) / 1000),
        idleS: Math.max(0, (now - s.lastAccess) / 1000),
        remainingS: s.remainingS(now),
        exitCode: s.exitCode,
        pid: s.pid,
      }));
  }

  /**
   * Kills every session of `owner` (SIGKILL to each whole process tree, sent before this
   * returns) and forgets them; resolves once their output is read. Returns how many there were.
   */
  killSession(owner: string): number {
    const victims = [...this.#sessions.values()].filter((s) => s.owner === owner);
    for (const s of victims) {
      this.#remove(s.id);
      void s.kill();
    }
    return victims.length;
  }

  /** Kills and forgets every session (shutdown). Synchronous, so it also serves the process `exit` hook. */
  killAll(): number {
    const victims = [...this.#sessions.values()];
    for (const s of victims) {
      this.#remove(s.id);
      void s.kill();
    }
    return victims.length;
  }

  #countOf(owner: string): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (s.owner === owner) n += 1;
    return n;
  }

  #add(session: ExecSession): void {
    this.#sessions.set(session.id, session);
    installExitHook();
    live.add(this);
  }

  #remove(id: string): void {
    this.#sessions.delete(id);
    if (this.#sessions.size === 0) live.delete(this);
  }

  #reapIdle(): void {
    const now = this.#now();
    for (const s of [...this.#sessions.values()]) {
      if (now - s.lastAccess > this.#idleMs) {
        this.#remove(s.id);
        void s.kill();
      }
    }
  }
}

