// Issue 29's survey: at every request point of the recorded sessions where the model waits on a
// tool result of at least 400 characters, governed at 8k / 16k / 32k / 128k (default mode, a
// memory artifact store), is the newest result sent whole, as a preview, or removed/replaced,
// and does its text read as an error? Prints counts; changes nothing.
//
//   NANOBOT_FIXTURES_DIR=fixtures node --conditions=source --import tsx packages/governor/scripts/newest-result-survey.ts
import type { Message } from '@nanobot/schema';
import { govern } from '../src/govern.js';
import { MemoryArtifactStore } from '../src/offload/memory-artifact-store.js';
import { loadTranscript, transcriptFiles } from '../src/test-support/transcripts.js';

const WINDOWS = [8_000, 16_000, 32_000, 128_000];
const rows: Record<number, { points: number; whole: number; preview: number; gone: number; error: number; unfit: number }> = {};
for (const w of WINDOWS) rows[w] = { points: 0, whole: 0, preview: 0, gone: 0, error: 0, unfit: 0 };
for (const file of transcriptFiles()) {
  const history = loadTranscript(file);
  for (let end = 1; end <= history.length; end++) {
    const last = history[end - 1];
    if (last.role !== 'tool' || typeof last.content !== 'string' || last.content.length < 400) continue;
    if (end < history.length && history[end].role === 'tool') continue;
    const prefix = history.slice(0, end);
    for (const w of WINDOWS) {
      const r = rows[w];
      r.points++;
      const { messages, report } = govern(prefix, { contextWindowTokens: w, maxOutputTokens: 1_024, artifactStore: new MemoryArtifactStore(), sessionKey: 's' });
      if (report.fits === false) r.unfit++;
      const id = (last as { tool_call_id?: string }).tool_call_id;
      const sent = messages.find((m: Message) => m.role === 'tool' && (m as { tool_call_id?: string }).tool_call_id === id);
      if (sent === undefined) r.gone++;
      else if (sent.content === last.content) r.whole++;
      else if (/shortened|persisted|characters cut|truncated/.test(String(sent.content))) r.preview++;
      else r.gone++;
      if (sent !== undefined && sent.content !== last.content && String(sent.content).startsWith('Error')) r.error++;
    }
  }
}
console.table(rows);
