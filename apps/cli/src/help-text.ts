// The help screens. Kept free of imports so `nanobot --help` loads nothing but this file and
// node:util.

/** The CLI's version (the package version; kept here so --version needs no file read). */
export const CLI_VERSION = '0.1.0';

/** The top-level help: every command, flag and environment variable. */
export const MAIN_HELP = `nanobot — an agent with real workspace tools, offline by default

Usage:
  nanobot run --demo                 offline demo: a real multi-step tool run in a temp workspace
                                     (removed afterwards)
  nanobot run -m "<message>"         one turn, then exit (--json: events as JSON lines)
  nanobot chat                       interactive chat (Ctrl-C stops a turn, twice exits)
  nanobot inspect [session]          what the governor would send for a session, and why
  nanobot tools                      the registered tools (--json: definitions as sent)
  nanobot providers                  the model providers: which are configured, the key variable
                                     each reads, its base URL, what a run would use (--json)
  nanobot worker --database-url <url>  a worker process: runs turns of a PostgreSQL-backed agent
  nanobot help [command]             help for one command

Options (all commands):
  -w, --workspace <dir>     where the tools work (env NANOBOT_WORKSPACE; default: the current
                            directory; run --demo: always a fresh temp workspace)
  -c, --config <file>       config file (env NANOBOT_CONFIG; default <workspace>/.nanobot/config.json)
      --provider <name>     any provider of \`nanobot providers\` (deepseek, gemini, openrouter, ollama…),
                            openai-responses or offline (env NANOBOT_PROVIDER; default: chosen from
                            the model and what is configured)
      --model <id>          model id (env NANOBOT_MODEL)
      --base-url <url>      the provider's endpoint: an OpenAI-compatible server, e.g.
                            http://127.0.0.1:11434/v1 (env OPENAI_BASE_URL), or the Anthropic API
                            root with --provider anthropic (env ANTHROPIC_BASE_URL)
      --offline             use the built-in scripted model even if a provider is configured
      --sessions-dir <dir>  where sessions are stored (env NANOBOT_SESSIONS_DIR;
                            default ~/.nanobot/sessions/<hash of the workspace path>)
      --database-url <url>  keep sessions and the message bus in PostgreSQL (postgres://…; env
                            NANOBOT_DATABASE_URL): run/chat go through it and this process is
                            one worker of it; any number of \`nanobot worker\`s share the load
      --context-window <n>  the model's context window in tokens (env NANOBOT_CONTEXT_WINDOW; default: the
                            model's, from its provider's models endpoint or the model table, else 65536)
      --max-iterations <n>  model calls per turn (default 200)
      --no-stream           ask the model for whole answers instead of a stream
      --no-color            plain output (env NO_COLOR)
  -h, --help                this help
      --version             print the version

Options of run:   -m, --message <text>   -s, --session <name>   --json   --demo
Options of chat:  -s, --session <name>   (resume a stored session; default: a new one)
Options of inspect: [session] (name or path to a .jsonl file; default: the latest)   --json
Options of tools:   --json

Environment:
  OPENAI_API_KEY        use an OpenAI model (default model gpt-5.4-mini)
  OPENAI_BASE_URL       OpenAI-compatible server (Ollama, vLLM, LM Studio…); no key needed
  ANTHROPIC_API_KEY     use an Anthropic model (default model claude-sonnet-4-6)
  DEEPSEEK_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, …  every provider's own key variable
                        (\`nanobot providers\` lists them)
  ANTHROPIC_BASE_URL    Anthropic API root (a proxy or gateway); used only for the anthropic provider
  NANOBOT_PROVIDER      a provider name (see --provider)
  NANOBOT_MODEL         model id
  NANOBOT_WORKSPACE     workspace directory
  NANOBOT_CONFIG        config file path
  NANOBOT_SESSIONS_DIR  sessions directory
  NANOBOT_DATABASE_URL  PostgreSQL URL for sessions and the bus (see --database-url)
  NANOBOT_DATABASE_LEASE_MS  a worker's session lease in ms (default 4000; more on a loaded machine)
  NANOBOT_CONTEXT_WINDOW  context window in tokens
  NO_COLOR              plain output
Flags win over the environment, the environment over the config file.
With no provider configured every command runs on the offline scripted model and says so; it
answers in words and never runs tools or commands from chat (only run --demo calls tools).

Config file (<workspace>/.nanobot/config.json), every field optional:
  { "provider": "openai", "model": "…", "baseUrl": "…", "apiKey": "…",
    "temperature": 0.2, "maxTokens": 4096, "contextWindowTokens": 65536, "maxIterations": 200,
    "maxToolResultChars": 16000, "sessionsDir": "…", "databaseUrl": "postgres://…", "restrictToWorkspace": true,
    "tools": { "exec": true, "web": true },
    "providers": { "<name>": { "apiKey": "…", "apiBase": "…", "extraHeaders": {} } },
    "mcpServers": { "<name>": { "command": "…", "args": [] } | { "url": "http://…" } } }

Exit codes: 0 ok, 1 the turn failed, 2 bad input (flags, workspace, config, session), 130 interrupted.
`;

/** Help screens of single commands (`nanobot help <command>`, `nanobot <command> --help`). */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage: nanobot run (-m "<message>" | --demo) [options]

Runs one turn and exits. The reply streams to stdout; tool activity and notices go to stderr.
  -m, --message <text>   what to ask
      --demo             the offline demo: the scripted model lists the workspace, reads a file,
                         writes a note, runs a command and reports what it found, all through the
                         real tools, in a fresh temp workspace that is removed afterwards
  -s, --session <name>   continue this stored session (default: a new one, printed on stderr)
      --json             print every event as one JSON object per line on stdout
Plus the options of \`nanobot --help\`.
`,
  providers: `Usage: nanobot providers [--json] [options]

Lists every model provider nanobot can use: the ones configured now marked ✓ (by their key
variable, OPENAI_BASE_URL / ANTHROPIC_BASE_URL, or the config file's "providers" section), the
variable each reads its key from, its base URL, and which provider and model a run with the same
options would use. OAuth-only and transcription-only providers are listed and marked ✗.
      --json             the same as JSON
Plus the options of \`nanobot --help\` (--provider and --model change what a run would use).
`,
  chat: `Usage: nanobot chat [-s <session>] [options]

Interactive chat. Replies stream; a status line shows while the model thinks; each tool call is
shown when it starts and ends (name, short arguments, duration, ok/error).
  Ctrl-C     stops the running turn (the history stays legal); a second Ctrl-C exits
  Ctrl-D     exits after the running turn
  /new /stop /status /help   the agent's commands
  -s, --session <name>   resume a stored session (created when it does not exist)
Plus the options of \`nanobot --help\`.
`,
  inspect: `Usage: nanobot inspect [session] [--json] [options]

Shows what the governor would send for a session's latest turn: the system prompt sections, the
message timeline with what was stripped, backfilled, offloaded, truncated, compacted or snipped,
and the token estimate against the budget. [session] is a session name or a path to a .jsonl
session file (default: the most recently updated session). Nothing is written.
  --json                 the same as one JSON document
  --context-window <n>   the budget to check against (default: configured, else 65536)
`,
  worker: `Usage: nanobot worker --database-url postgres://user:pass@host:5432/db [options]

Runs one worker: takes inbound messages published to the database (by \`nanobot run\`/\`chat\`
with the same --database-url, or any PostgresMessageBus) as jobs, runs their turns with this
workspace's tools and model, and stores the answers for delivery. Sessions run one turn at a
time across all workers; different sessions run on all of them at once. A worker that dies is
noticed by the others (missed heartbeats) and its turn runs again elsewhere, answered once.
Ctrl-C or SIGTERM: running turns finish, then it exits 0.
Plus the options of \`nanobot --help\`.
`,
  tools: `Usage: nanobot tools [--json] [options]

Lists the registered tools (built-ins, then MCP servers' tools with their server) with their
scopes and flags (read-only, exclusive, concurrency-safe).
  --json   the tool definitions exactly as sent to the model
`,
};
