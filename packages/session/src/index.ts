export { Session, normalizeLastConsolidated } from './session.js';
export type { SessionInit } from './session.js';
export { getHistory, MIN_COMPACTED_REPLAY_MESSAGES } from './get-history.js';
export type { GetHistoryOptions } from './get-history.js';
export type { SessionStore, SessionLoadResult } from './session-store.js';
export { JsonlSessionStore } from './jsonl-session-store.js';
export type { FsyncPolicy, JsonlSessionStoreOptions } from './jsonl-session-store.js';
export { headerRecord, parseSessionFile, providerStateRecord } from './session-file-format.js';
export {
  isHashedSessionFileName,
  legacySessionFileName,
  referenceSessionFileName,
  sessionFileName,
  sessionKeyFromFileName,
  sessionKeysFromFileName,
} from './session-file-name.js';
export type { HeaderSlot, ParsedSessionFile, SessionWarning } from './session-file-format.js';
export { withFileLock, processStartTime } from './file-lock.js';
export type { FileLockOptions } from './file-lock.js';
export { KeyedMutex } from './keyed-mutex.js';
export { SessionConflictError, SessionLockError, SessionStoreError, SessionWriteError } from './errors.js';
export { nodeSessionFs } from './session-fs.js';
export type { SessionFileHandle, SessionFileStat, SessionFs } from './session-fs.js';
export { parseJson, stringifyJson } from './python-json.js';
export { MemoryStore, HISTORY_ENTRY_MAX_CHARS, HISTORY_MAX_ENTRIES, RAW_ARCHIVE_MAX_CHARS } from './memory-store.js';
export type { AppendHistoryOptions, MemoryStoreOptions } from './memory-store.js';
export {
  Consolidator,
  CONSOLIDATION_SAFETY_BUFFER,
  MAX_CONSOLIDATION_ROUNDS,
  SUMMARY_MAX_CHARS,
  TOKEN_PROBE_MESSAGE,
} from './consolidator.js';
export type { ConsolidationPromptInput, ConsolidationReport, ConsolidatorOptions } from './consolidator.js';
export { consolidatorArchivePrompt } from './consolidator-prompt.js';
export { contentWithMediaBreadcrumbs, imagePlaceholderText } from './media-breadcrumbs.js';
export { recentMessageStartIndex } from './recent-message-start-index.js';
export { localIsoTimestamp, localMinuteTimestamp } from './local-time.js';
