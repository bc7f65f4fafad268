import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/**
 * Recorded sessions the governor playground offers (from the repo's fixtures/), emitted as
 * static files under dist/client/sessions/ with an index.json: the page fetches them like any
 * other asset, and governs them in the browser.
 */
const RECORDED_SESSIONS: readonly { source: string; title: string; detail: string }[] = [
  { source: 'transcripts/All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json', title: 'OpenHands on ponyc (68 messages, ends on an unanswered call)', detail: 'All-Hands-AI/OpenHands, MIT: a multi-SWE-bench run whose last tool call never got its result.' },
  { source: 'transcripts/sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json', title: 'τ-bench airline agent, gpt-4o (62 messages, repeated call ids)', detail: 'sierra-research/tau-bench, MIT: a customer-service run that reuses tool-call ids.' },
  { source: 'transcripts/SWE-agent-SWE-agent__marshmallow-1867-function-calling-demo.json', title: 'SWE-agent fixing marshmallow (28 messages, repeated call ids)', detail: 'SWE-agent/SWE-agent, MIT: the function-calling demo trajectory.' },
  { source: 'transcripts/badlogic-pi-mono__web-ui-long-session.json', title: 'pi web UI session (107 messages, empty assistant turns)', detail: 'badlogic/pi-mono, MIT: a long coding session with placeholder assistant turns.' },
  { source: 'model-switch/anthropic-thinking-tool-loop.json', title: 'Claude thinking in a tool loop (signed thinking blocks)', detail: 'A model-switch case: signed thinking before each call, to send to another provider.' },
];

function recordedSessions(): Plugin {
  const fixtures = resolve(import.meta.dirname, '../../fixtures');
  return {
    name: 'nanobot-recorded-sessions',
    apply: 'build',
    generateBundle() {
      const index = RECORDED_SESSIONS.map(({ source, title, detail }) => {
        const file = source.split('/').pop()!;
        this.emitFile({ type: 'asset', fileName: `sessions/${file}`, source: readFileSync(resolve(fixtures, source), 'utf8') });
        return { file, title, detail };
      });
      this.emitFile({ type: 'asset', fileName: 'sessions/index.json', source: `${JSON.stringify(index, null, 2)}\n` });
    },
  };
}

// The pages: src/client (plain TypeScript + CSS) → dist/client, served by the node:http server.
// index.html is the demo with its inspector; playground.html the governor playground, which
// bundles the governor itself.
export default defineConfig({
  root: resolve(import.meta.dirname, 'src/client'),
  base: '/',
  logLevel: 'warn',
  plugins: [recordedSessions()],
  build: {
    outDir: resolve(import.meta.dirname, 'dist/client'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      input: {
        main: resolve(import.meta.dirname, 'src/client/index.html'),
        playground: resolve(import.meta.dirname, 'src/client/playground.html'),
      },
    },
  },
});
