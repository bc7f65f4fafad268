#!/usr/bin/env node
// `node apps/web/dist/server/main.js [--port 8765] [--host 127.0.0.1] [--workspace DIR]
// [--sessions DIR] [--context-window N] [--offline]`: starts the web demo and prints its URL.
import { parseArgs } from 'node:util';
import { startDemo } from './start-demo.js';

function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, got "${value}"`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    workspace: { type: 'string' },
    sessions: { type: 'string' },
    'context-window': { type: 'string' },
    offline: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log('nanobot web demo\n\n  --port N             port (default 8765, env NANOBOT_WEB_PORT)\n  --host H             interface (default 127.0.0.1)\n  --workspace DIR      agent workspace (default: a seeded demo workspace in the temp dir)\n  --sessions DIR       session store directory\n  --context-window N   context window in tokens (env NANOBOT_CONTEXT_WINDOW)\n  --offline            use the offline scripted model even if an API key is set');
  process.exit(0);
}

const port = intOption(values.port ?? process.env.NANOBOT_WEB_PORT, 'port');
const contextWindowTokens = intOption(values['context-window'], 'context-window');
const demo = await startDemo({
  ...(port !== undefined ? { port } : {}),
  ...(values.host !== undefined ? { hostname: values.host } : {}),
  ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
  ...(values.sessions !== undefined ? { sessionsDir: values.sessions } : {}),
  ...(contextWindowTokens ? { contextWindowTokens } : {}),
  ...(values.offline ? { offline: true } : {}),
  onError: (error, where) => console.error(`[nanobot-web] ${where}:`, error),
});
const info = demo.host.provider;
console.log(`nanobot web demo on ${demo.url}  (model: ${info.defaultModel} via ${info.name}; workspace: ${demo.workspace})`);
if (info.name === 'offline') console.log('Offline scripted model: set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY (and NANOBOT_MODEL) for a real one.');

let closing = false;
const shutdown = (): void => {
  if (closing) process.exit(1);
  closing = true;
  void demo.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
