#!/usr/bin/env node
// `node apps/web/dist/server/main.js [--port 8765] [--host 127.0.0.1] [--workspace DIR]
// [--sessions DIR] [--database-url URL] [--context-window N] [--provider NAME] [--model ID] [--offline]`: starts the web demo and prints its URL.
// Bad input (an unknown flag, a bad number, a missing workspace, a refused model configuration,
// a busy port) is one line on stderr and exit 2, before anything is created or started.
import { parseArgs } from 'node:util';
import { NanobotError } from '@nanobot/schema';
import { startDemo } from './start-demo.js';

const HELP = `nanobot web demo

  --port N             port (default 8765, env NANOBOT_WEB_PORT; 0 picks a free one)
  --host H             interface (default 127.0.0.1)
  --workspace DIR      agent workspace, must exist (default: a seeded demo workspace in the temp dir)
  --sessions DIR       session store directory
  --database-url URL   keep sessions and the message bus in PostgreSQL (postgres://…, env
                       NANOBOT_DATABASE_URL); the demo is then one worker of that database
  --context-window N   context window in tokens (env NANOBOT_CONTEXT_WINDOW)
  --provider NAME      any provider of \`nanobot providers\` (env NANOBOT_PROVIDER; default: chosen
                       from the model and what is configured, as the CLI)
  --model ID           model id (env NANOBOT_MODEL)
  --no-exec            leave out the exec tools (exec, write_stdin, list_exec_sessions)
  --no-web             leave out the web tools (web_fetch, web_search)
  --offline            use the offline scripted model even if an API key is set
Model: every provider's key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY,
GEMINI_API_KEY, …), OPENAI_BASE_URL for a local server; GET /api/providers lists them.`;

function refuse(message: string): never {
  process.stderr.write(`nanobot-web: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(2);
}

function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) refuse(`--${name} must be a non-negative integer, got "${value}"`);
  return n;
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      workspace: { type: 'string' },
      sessions: { type: 'string' },
      'database-url': { type: 'string' },
      'context-window': { type: 'string' },
      offline: { type: 'boolean' },
      provider: { type: 'string' },
      model: { type: 'string' },
      'no-exec': { type: 'boolean' },
      'no-web': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  refuse(`${(error as Error).message.replace(/\s*\n\s*/g, ' ')} (see --help)`);
}

if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const port = intOption(values.port ?? process.env.NANOBOT_WEB_PORT, 'port');
const contextWindowTokens = intOption(values['context-window'], 'context-window');
const hostname = values.host ?? '127.0.0.1';
const databaseUrl = values['database-url'] ?? (process.env.NANOBOT_DATABASE_URL || undefined);
let demo;
try {
  demo = await startDemo({
    ...(port !== undefined ? { port } : {}),
    hostname,
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
    ...(values.sessions !== undefined ? { sessionsDir: values.sessions } : {}),
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    ...(contextWindowTokens ? { contextWindowTokens } : {}),
    ...(values.offline ? { offline: true } : {}),
    ...(values.provider !== undefined ? { providerName: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values['no-exec'] ? { exec: false } : {}),
    ...(values['no-web'] ? { web: false } : {}),
    onError: (error, where) => console.error(`[nanobot-web] ${where}:`, error),
  });
} catch (error) {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') refuse(`port ${port ?? 8765} on ${hostname} is already in use (--port 0 picks a free one)`);
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES') refuse(`cannot listen on ${hostname}:${port ?? 8765} (${String(code)})`);
  if (error instanceof NanobotError) refuse(error.message);
  throw error;
}
// Handlers first: a signal that arrives right after the URL is printed still closes cleanly.
let closing = false;
const shutdown = (): void => {
  if (closing) process.exit(1);
  closing = true;
  void demo.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

// What a person needs: the URL first, then the model and workspace, each line fitted to the terminal.
const info = demo.host.provider;
const columns = process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : 80;
const wrap = (text: string): string => {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 1 + word.length <= columns) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(lines.length === 0 ? word : `  ${word}`);
  }
  return lines.join('\n');
};
console.log(`nanobot web demo: ${demo.url}`);
console.log(wrap(info.name === 'offline' ? "model: the offline scripted model (set a provider's key — OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, … — or OPENAI_BASE_URL, and NANOBOT_MODEL or --model, for a real one)" : `model: ${info.defaultModel} via ${info.name}`));
console.log(wrap(`workspace: ${demo.workspace}`));
for (const line of demo.notices) console.error(wrap(`nanobot-web: ${line}`));
