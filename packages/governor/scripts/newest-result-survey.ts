// Issue 29's survey: at every request point of the recorded sessions where the model waits on a
// tool result of at least 400 characters, governed at 8k / 16k / 32k / 128k (default mode, a
// memory artifact store), is the newest result sent whole, as a preview, or removed/replaced,
// and does its text read as an error? Prints counts; changes nothing.
//
//   NANOBOT_FIXTURES_DIR=fixtures node --conditions=source --import tsx packages/governor/scripts/newest-result-survey.ts
import { govern } from '../src/govern.js';
import { MemoryArtifactStore } from '../src/offload/memory-artifact-store.js';
import { loadTranscript, waitingOnResultPoints } from '../src/test-support/node/transcripts.js';

const WINDOWS = [8_000, 16_000, 32_000, 128_000];
const rows: Record<number, { points: number; whole: number; preview: number; noRoom: number; noRoomFits: number; gone: number; error: number; unfit: number }> = {};
for (const w of WINDOWS) rows[w] = { points: 0, whole: 0, preview: 0, noRoom: 0, noRoomFits: 0, gone: 0, error: 0, unfit: 0 };
for (const { file, end } of waitingOnResultPoints()) {
  const prefix = loadTranscript(file).slice(0, end);
  const last = prefix[end - 1];
  for (const w of WINDOWS) {
    const r = rows[w];
    r.points++;
    const { messages, report } = govern(prefix, { contextWindowTokens: w, maxOutputTokens: 1_024, artifactStore: new MemoryArtifactStore(), sessionKey: 's' });
    if (report.fits === false) {
      r.unfit++;
      if (process.env.SURVEY_VERBOSE) console.log(w, file, end, 'not fitting:', report.overflow?.reason, report.overflow?.message);
    }
    // The newest result ends the copy when it was kept (a repeated call id is renamed by
    // repairToolCallIds, so it is found by place, not by id).
    const tail = messages.at(-1);
    const sent = tail?.role === 'tool' ? tail : undefined;
    if (sent === undefined) r.gone++;
    else if (sent.content === last.content) r.whole++;
    else if (/has no room for it/.test(String(sent.content))) {
      // Not even a short preview fits beside the instructions, the user message and the calls.
      r.noRoom++;
      if (report.fits !== false) r.noRoomFits++;
    } else if (/shortened|persisted|characters cut|truncated/.test(String(sent.content))) r.preview++;
    else r.gone++;
    // The governor's own words (its bracketed notes, or a text that replaced the result) never say "error".
    const own = sent === undefined || sent.content === last.content ? [] : String(sent.content).split('\n').filter((line) => !String(last.content).includes(line));
    if (own.some((line) => /\berror\b/i.test(line))) r.error++;
    if (process.env.SURVEY_VERBOSE && (sent === undefined || (sent.content !== last.content && !/has no room for it|shortened|persisted|characters cut|truncated/.test(String(sent.content))))) console.log(w, file, end, sent === undefined ? 'gone' : String(sent.content).slice(0, 200));
  }
}
console.table(rows);
