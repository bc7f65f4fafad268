// The hand-made model-switch histories of fixtures/model-switch: each provider family's history
// as it produces it (its reasoning, signatures, ids and provider-executed tool blocks), alone and
// switched mid-session to another family. Signatures are the provider-wire stand-ins' own
// (verifiable: a history that keeps them byte-exact passes, one that changes or moves them is
// rejected). scripts/make-model-switch-fixtures.ts writes them; a test checks the committed
// files are exactly what this module renders.
import { geminiCallSignature, openRouterEncryptedData, openRouterTextSignature, responsesEncryptedContent, wireSignature } from '@nanobot-internal/provider-wire';

type Msg = Record<string, unknown>;
/** One hand-made history: who produced it, what it shows, its messages (nanobot's stored shape). */
export interface ModelSwitchFixture { producer: string; description: string; messages: Msg[] }

const user = (content: string): Msg => ({ role: 'user', content });
const text = (content: string): Msg => ({ role: 'assistant', content });
const result = (id: string, name: string, content: string): Msg => ({ role: 'tool', tool_call_id: id, name, content });
const fn = (id: string, name: string, args: Record<string, unknown>, extra: Msg = {}): Msg => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) }, ...extra });
const calls = (list: Msg[], extra: Msg = {}): Msg => ({ role: 'assistant', content: null, tool_calls: list, ...extra });

// Anthropic: signed thinking blocks (nanobot's thinking_blocks) with toolu_ ids.
const thinking = (t: string): Msg => ({ type: 'thinking', thinking: t, signature: wireSignature('anthropic-thinking', t) });
const redacted = (data: string): Msg => ({ type: 'redacted_thinking', data });
// Bedrock (Claude through Converse): signed reasoning, the producer marked.
const bedrockThinking = (t: string): Msg => ({ type: 'thinking', thinking: t, signature: wireSignature('bedrock-reasoning', t), producer: 'bedrock' });
// Gemini 3 thought signatures on the first call of each step (OpenAI-compatible form).
const gcall = (id: string, name: string, args: Record<string, unknown>, signed: boolean): Msg => fn(id, name, args, signed ? { extra_content: { google: { thought_signature: geminiCallSignature(name, args) } } } : {});
// Responses reasoning items (nanobot keeps them in thinking_blocks, as @nanobot/providers does).
const rsItem = (id: string, summary: string[]): Msg => ({ type: 'reasoning', id, summary: summary.map((s) => ({ type: 'summary_text', text: s })), encrypted_content: responsesEncryptedContent(id) });
// OpenRouter reasoning_details.
const orText = (t: string, format: string): Msg => ({ type: 'reasoning.text', text: t, signature: openRouterTextSignature(t), format, index: 0 });
const orEncrypted = (callId: string, index = 1): Msg => ({ type: 'reasoning.encrypted', data: openRouterEncryptedData(callId), id: callId, format: 'google-gemini-v1', index });

/** The model-switch histories by file name (without `.json`). */
export const MODEL_SWITCH_FIXTURES: Readonly<Record<string, ModelSwitchFixture>> = {
  'anthropic-thinking-tool-loop': {
    producer: 'anthropic',
    description: 'Claude with extended thinking: signed thinking before each tool call and answer, over three user turns.',
    messages: [
      user('List the TypeScript files under src and tell me which is largest.'),
      calls([fn('toolu_01A1', 'list_files', { path: 'src' })], { thinking_blocks: [thinking('I should list src first.')], reasoning_content: 'I should list src first.' }),
      result('toolu_01A1', 'list_files', 'a.ts\nb.ts\nc.ts'),
      calls([fn('toolu_01A2', 'file_size', { paths: ['src/a.ts', 'src/b.ts', 'src/c.ts'] })], { thinking_blocks: [thinking('Now the sizes.')], reasoning_content: 'Now the sizes.' }),
      result('toolu_01A2', 'file_size', '{"src/a.ts":120,"src/b.ts":9000,"src/c.ts":40}'),
      { role: 'assistant', content: 'src/b.ts is the largest (9,000 bytes).', thinking_blocks: [thinking('b.ts wins.')], reasoning_content: 'b.ts wins.' },
      user('Open it and summarise the exports.'),
      calls([fn('toolu_01A3', 'read_file', { path: 'src/b.ts' })], { thinking_blocks: [thinking('Read b.ts.')], reasoning_content: 'Read b.ts.' }),
      result('toolu_01A3', 'read_file', 'export function parse() {}\nexport const VERSION = 3;'),
      { role: 'assistant', content: 'It exports `parse` and `VERSION`.', thinking_blocks: [thinking('Two exports.')], reasoning_content: 'Two exports.' },
      user('Thanks. Any tests for parse?'),
    ],
  },
  'anthropic-thinking-parallel-calls': {
    producer: 'anthropic',
    description: 'Claude with thinking issuing three parallel tool calls in one turn; the request points include the middle of the tool loop.',
    messages: [
      user('Compare the READMEs of the three packages.'),
      calls([fn('toolu_02B1', 'read_file', { path: 'a/README.md' }), fn('toolu_02B2', 'read_file', { path: 'b/README.md' }), fn('toolu_02B3', 'read_file', { path: 'c/README.md' })], { thinking_blocks: [thinking('Read all three at once.')] }),
      result('toolu_02B1', 'read_file', '# a'),
      result('toolu_02B2', 'read_file', '# b'),
      result('toolu_02B3', 'read_file', '# c'),
      calls([fn('toolu_02B4', 'grep', { pattern: 'install' })], { thinking_blocks: [thinking('Check install sections.')] }),
      result('toolu_02B4', 'grep', 'a/README.md:3: npm install a'),
      { role: 'assistant', content: 'Only package a documents installation.', thinking_blocks: [thinking('Summarise.')] },
      user('Add install sections to b and c.'),
    ],
  },
  'anthropic-redacted-thinking': {
    producer: 'anthropic',
    description: 'Claude turns holding a redacted_thinking block (opaque data) before a tool call.',
    messages: [
      user('Check the deploy script for secrets.'),
      calls([fn('toolu_03C1', 'read_file', { path: 'deploy.sh' })], { thinking_blocks: [redacted('EmwKAhgBEgy3redactedpayload0001'), thinking('Read the script.')] }),
      result('toolu_03C1', 'read_file', 'export TOKEN=$VAULT_TOKEN'),
      { role: 'assistant', content: 'No literal secrets; the token comes from the environment.', thinking_blocks: [thinking('Safe.')] },
      user('Good. And the CI config?'),
    ],
  },
  'anthropic-server-tool-blocks': {
    producer: 'anthropic',
    description: 'Claude using a provider-executed tool (web search): server_tool_use and web_search_tool_result blocks in the assistant content, then a client tool.',
    messages: [
      user('What is the latest Node LTS? Then check our .nvmrc.'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me search.' },
          { type: 'server_tool_use', id: 'srvtoolu_04D1', name: 'web_search', input: { query: 'Node.js LTS version' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_04D1', content: [{ type: 'web_search_result', url: 'https://nodejs.org/en/about/previous-releases', title: 'Node.js releases', encrypted_content: 'EqgfCioIARgBIiQ3' }] },
          { type: 'text', text: 'Node 24 is the active LTS.' },
        ],
        tool_calls: [fn('toolu_04D2', 'read_file', { path: '.nvmrc' })],
      },
      result('toolu_04D2', 'read_file', '20'),
      text('Your .nvmrc pins Node 20; the active LTS is 24.'),
      user('Bump it.'),
    ],
  },
  'anthropic-aborted-unsigned-thinking': {
    producer: 'anthropic',
    description: 'A turn aborted mid-thinking: the stored assistant turn holds only unsigned reasoning (no text, no calls), then the user goes on.',
    messages: [
      user('Refactor the parser.'),
      { role: 'assistant', content: null, thinking_blocks: [{ type: 'thinking', thinking: 'Start by reading the parser and', signature: '' }], reasoning_content: 'Start by reading the parser and' },
      user('Stop, just explain what it does first.'),
      calls([fn('toolu_05E1', 'read_file', { path: 'src/parser.ts' })], { thinking_blocks: [thinking('Read it.')] }),
      result('toolu_05E1', 'read_file', 'export function parse(s: string) { return s.split(","); }'),
      text('It splits a string on commas.'),
      user('OK, go on with the refactor.'),
    ],
  },
  'gemini-thought-signatures': {
    producer: 'gemini',
    description: 'Gemini 3 sequential function calling: each step\'s call carries its thought signature (OpenAI-compatible extra_content form).',
    messages: [
      user('Book the cheapest flight from Paris to Rome tomorrow.'),
      calls([gcall('function-call-1', 'search_flights', { from: 'CDG', to: 'FCO' }, true)]),
      result('function-call-1', 'search_flights', '[{"id":"AF1","price":120},{"id":"AZ2","price":95}]'),
      calls([gcall('function-call-2', 'book_flight', { id: 'AZ2' }, true)]),
      result('function-call-2', 'book_flight', '{"status":"booked"}'),
      text('Booked AZ2 for 95 EUR.'),
      user('Add a hotel near the Colosseum.'),
      calls([gcall('function-call-3', 'search_hotels', { near: 'Colosseum' }, true)]),
      result('function-call-3', 'search_hotels', '[{"id":"H1"}]'),
      text('Found H1 near the Colosseum.'),
      user('Book it.'),
    ],
  },
  'gemini-parallel-calls': {
    producer: 'gemini',
    description: 'Gemini 3 parallel calls: only the first call of the step carries the signature, as Google documents.',
    messages: [
      user('Weather in Paris, Rome and Oslo?'),
      calls([gcall('function-call-11', 'weather', { city: 'Paris' }, true), gcall('function-call-12', 'weather', { city: 'Rome' }, false), gcall('function-call-13', 'weather', { city: 'Oslo' }, false)]),
      result('function-call-11', 'weather', 'sunny'),
      result('function-call-12', 'weather', 'rain'),
      result('function-call-13', 'weather', 'snow'),
      text('Paris sunny, Rome rain, Oslo snow.'),
      user('And tomorrow?'),
    ],
  },
  'gemini-tool-result-then-user': {
    producer: 'gemini',
    description: 'A tool result followed directly by a user message (an environment complaint), then more calls.',
    messages: [
      user('Run the tests.'),
      calls([gcall('function-call-21', 'exec', { cmd: 'npm test' }, true)]),
      result('function-call-21', 'exec', 'FAIL src/a.test.ts'),
      user('[environment] the test run timed out after 60 s'),
      calls([gcall('function-call-22', 'exec', { cmd: 'npm test -- --bail' }, true)]),
      result('function-call-22', 'exec', 'FAIL src/a.test.ts: expected 2, got 3'),
      text('src/a.test.ts fails: expected 2, got 3.'),
      user('Fix it.'),
    ],
  },
  'deepseek-reasoner-tool-loop': {
    producer: 'deepseek',
    description: 'DeepSeek thinking mode: reasoning_content on every tool-calling turn and answer.',
    messages: [
      user('How many lines does src/index.ts have?'),
      calls([fn('call_00_dsK1', 'exec', { cmd: 'wc -l src/index.ts' })], { reasoning_content: 'Use wc -l.' }),
      result('call_00_dsK1', 'exec', '42 src/index.ts'),
      { role: 'assistant', content: '42 lines.', reasoning_content: 'The output says 42.' },
      user('And the test file?'),
      calls([fn('call_00_dsK2', 'exec', { cmd: 'wc -l src/index.test.ts' })], { reasoning_content: 'Same for the test.' }),
      result('call_00_dsK2', 'exec', '17 src/index.test.ts'),
      { role: 'assistant', content: '17 lines.', reasoning_content: 'Output 17.' },
      user('Thanks.'),
    ],
  },
  'deepseek-v4-multi-turn': {
    producer: 'deepseek',
    description: 'DeepSeek V4 thinking: chained calls in one turn (each with reasoning), then a plain turn.',
    messages: [
      user('Find the TODOs and count them per file.'),
      calls([fn('call_00_v4a', 'grep', { pattern: 'TODO' })], { reasoning_content: 'grep first' }),
      result('call_00_v4a', 'grep', 'a.ts:1\na.ts:9\nb.ts:4'),
      calls([fn('call_00_v4b', 'count', { input: 'a.ts:1\na.ts:9\nb.ts:4' })], { reasoning_content: 'then count' }),
      result('call_00_v4b', 'count', '{"a.ts":2,"b.ts":1}'),
      { role: 'assistant', content: 'a.ts has 2, b.ts has 1.', reasoning_content: 'done' },
      user('Which is more urgent?'),
      { role: 'assistant', content: 'a.ts, it has more.', reasoning_content: 'a has more' },
      user('Open a.ts.'),
    ],
  },
  'responses-encrypted-reasoning': {
    producer: 'openai-responses',
    description: 'OpenAI Responses with store off: encrypted reasoning items (kept in thinking_blocks) before calls and answers.',
    messages: [
      user('Summarise the CHANGELOG since 1.0.'),
      calls([fn('call_rsA1', 'read_file', { path: 'CHANGELOG.md' })], { thinking_blocks: [rsItem('rs_resp01', ['Need the changelog.'])] }),
      result('call_rsA1', 'read_file', '## 1.1\n- added x\n## 1.0\n- first'),
      { role: 'assistant', content: 'Since 1.0: x was added (1.1).', thinking_blocks: [rsItem('rs_resp02', [])] },
      user('Draft release notes for 1.2.'),
      calls([fn('call_rsA2', 'git_log', { since: 'v1.1' })], { thinking_blocks: [rsItem('rs_resp03', ['Look at commits since 1.1.'])] }),
      result('call_rsA2', 'git_log', 'feat: y\nfix: z'),
      { role: 'assistant', content: '1.2: y added, z fixed.', thinking_blocks: [rsItem('rs_resp04', ['Write it up.'])] },
      user('Good, commit it.'),
    ],
  },
  'openrouter-gemini-reasoning-details': {
    producer: 'openrouter',
    description: 'Gemini 3 behind OpenRouter: reasoning_details with the encrypted thought signature bound to the call id.',
    messages: [
      user('Translate the error messages in errors.ts to French.'),
      calls([fn('tool_0_read_file_abc', 'read_file', { path: 'errors.ts' })], { reasoning_details: [orText('Read the file first.', 'google-gemini-v1'), orEncrypted('tool_0_read_file_abc')] }),
      result('tool_0_read_file_abc', 'read_file', 'export const E = "Not found";'),
      calls([fn('tool_1_write_file_def', 'write_file', { path: 'errors.fr.ts', content: 'export const E = "Introuvable";' })], { reasoning_details: [orEncrypted('tool_1_write_file_def', 0)] }),
      result('tool_1_write_file_def', 'write_file', 'ok'),
      text('Wrote errors.fr.ts.'),
      user('Also German.'),
    ],
  },
  'openrouter-claude-reasoning-details': {
    producer: 'openrouter',
    description: 'Claude behind OpenRouter with reasoning on: signed reasoning.text details on the tool-calling turns.',
    messages: [
      user('Is port 8080 free?'),
      calls([fn('toolu_or01', 'exec', { cmd: 'lsof -i :8080' })], { reasoning_details: [orText('Check with lsof.', 'anthropic-claude-v1')] }),
      result('toolu_or01', 'exec', ''),
      { role: 'assistant', content: 'Nothing listens on 8080.', reasoning_details: [orText('Empty output: free.', 'anthropic-claude-v1')] },
      user('Start the server on it.'),
    ],
  },
  'bedrock-signed-reasoning': {
    producer: 'bedrock',
    description: 'Claude through Bedrock Converse: signed reasoning before calls (producer bedrock).',
    messages: [
      user('Check the disk usage of /var/log.'),
      calls([fn('tooluse_AbC123xyz', 'exec', { cmd: 'du -sh /var/log' })], { thinking_blocks: [bedrockThinking('Use du.')] }),
      result('tooluse_AbC123xyz', 'exec', '1.2G /var/log'),
      { role: 'assistant', content: '1.2 GB.', thinking_blocks: [bedrockThinking('Report it.')] },
      user('Clean the old ones.'),
    ],
  },
  'bedrock-unsigned-reasoning': {
    producer: 'bedrock',
    description: 'A Bedrock model that reasons without signatures (DeepSeek-R1 style): reasoning text only, which must not be sent back.',
    messages: [
      user('Why is the sky blue? One line.'),
      { role: 'assistant', content: 'Rayleigh scattering favours short wavelengths.', reasoning_content: 'Rayleigh scattering.' },
      user('And sunsets red?'),
      { role: 'assistant', content: 'Longer path, blue scattered away.', reasoning_content: 'Path length.' },
      user('Thanks.'),
    ],
  },
  'mistral-native-ids': {
    producer: 'mistral',
    description: 'Mistral-produced history: 9-character ids, and an assistant turn bridging a tool result and the next user message.',
    messages: [
      user('List the open issues labelled bug.'),
      calls([fn('D681PevKs', 'issues', { label: 'bug' })]),
      result('D681PevKs', 'issues', '#12 crash on start\n#15 wrong total'),
      text('Two open bugs: #12 and #15.'),
      user('Close #15, it is fixed.'),
      calls([fn('x7Yq2LmN0', 'close_issue', { number: 15 })]),
      result('x7Yq2LmN0', 'close_issue', 'closed'),
      text('Closed #15.'),
      user('Thanks.'),
    ],
  },
  'openai-tool-result-then-user': {
    producer: 'openai',
    description: 'GPT through chat completions: call_ ids, and a user message directly after a tool result (an interrupted run).',
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      user('Install the deps and build.'),
      calls([fn('call_Q1w2E3r4T5y6U7i8O9p0A1s2', 'exec', { cmd: 'npm ci' })]),
      result('call_Q1w2E3r4T5y6U7i8O9p0A1s2', 'exec', 'added 312 packages'),
      user('[interrupted] skip the build, just run lint'),
      calls([fn('call_Z9x8C7v6B5n4M3l2K1j0H9g8', 'exec', { cmd: 'npm run lint' })]),
      result('call_Z9x8C7v6B5n4M3l2K1j0H9g8', 'exec', '0 problems'),
      text('Lint passes.'),
      user('Now build.'),
    ],
  },
  'switch-anthropic-to-gemini-to-openai': {
    producer: 'mixed',
    description: 'One session across three families: Claude with signed thinking, then Gemini 3 with thought signatures, then GPT.',
    messages: [
      user('Start the migration: read the schema.'),
      calls([fn('toolu_sw01', 'read_file', { path: 'schema.sql' })], { thinking_blocks: [thinking('Read the schema.')] }),
      result('toolu_sw01', 'read_file', 'create table a (id int);'),
      { role: 'assistant', content: 'One table, a(id).', thinking_blocks: [thinking('Simple schema.')] },
      user('(switched to Gemini) Write the migration.'),
      calls([gcall('function-call-31', 'write_file', { path: 'm1.sql', content: 'alter table a add b int;' }, true)]),
      result('function-call-31', 'write_file', 'ok'),
      text('Wrote m1.sql.'),
      user('(switched to GPT) Run it.'),
      calls([fn('call_sw03', 'exec', { cmd: 'psql -f m1.sql' })]),
      result('call_sw03', 'exec', 'ALTER TABLE'),
      text('Migration applied.'),
      user('Verify the columns.'),
    ],
  },
  'switch-deepseek-to-anthropic': {
    producer: 'mixed',
    description: 'DeepSeek reasoning_content turns, then Claude with signed thinking in the same tool loop style.',
    messages: [
      user('Profile the slow endpoint.'),
      calls([fn('call_00_sw1', 'exec', { cmd: 'ab -n 100 /slow' })], { reasoning_content: 'Benchmark it.' }),
      result('call_00_sw1', 'exec', 'mean 900 ms'),
      { role: 'assistant', content: '900 ms mean.', reasoning_content: 'Slow indeed.' },
      user('(switched to Claude) Find the cause.'),
      calls([fn('toolu_sw2', 'read_file', { path: 'src/slow.ts' })], { thinking_blocks: [thinking('Read the handler.')] }),
      result('toolu_sw2', 'read_file', 'for (const x of all) await db.get(x)'),
      { role: 'assistant', content: 'N+1 queries in a loop.', thinking_blocks: [thinking('Classic N+1.')] },
      user('Fix it.'),
    ],
  },
  'switch-responses-to-openrouter': {
    producer: 'mixed',
    description: 'Encrypted Responses reasoning, then Gemini 3 behind OpenRouter with reasoning_details.',
    messages: [
      user('List the env vars the app reads.'),
      calls([fn('call_swR1', 'grep', { pattern: 'process.env' })], { thinking_blocks: [rsItem('rs_swR1', ['grep env'])] }),
      result('call_swR1', 'grep', 'src/a.ts: process.env.PORT'),
      { role: 'assistant', content: 'Only PORT.', thinking_blocks: [rsItem('rs_swR2', [])] },
      user('(switched to OpenRouter Gemini) Document it in the README.'),
      calls([fn('tool_0_edit_file_swR3', 'edit_file', { path: 'README.md', append: 'PORT: the port' })], { reasoning_details: [orEncrypted('tool_0_edit_file_swR3', 0)] }),
      result('tool_0_edit_file_swR3', 'edit_file', 'ok'),
      text('Documented PORT.'),
      user('Thanks.'),
    ],
  },
  'switch-mid-loop-gemini-to-anthropic': {
    producer: 'mixed',
    description: 'A switch inside a tool loop: Gemini 3 made the call, its result is in, and the next request goes to another family (the request point after the result is the current turn).',
    messages: [
      user('Count the words in notes.txt and then summarise it.'),
      calls([gcall('function-call-41', 'read_file', { path: 'notes.txt' }, true)]),
      result('function-call-41', 'read_file', 'alpha beta gamma'),
      calls([fn('toolu_mid2', 'word_count', { text: 'alpha beta gamma' })], { thinking_blocks: [thinking('Count them.')] }),
      result('toolu_mid2', 'word_count', '3'),
      text('3 words: alpha, beta, gamma.'),
      user('Good.'),
    ],
  },
};

/** The committed file text of a fixture (one message per line, like fixtures/transcripts). */
export function renderFixture(f: ModelSwitchFixture): string {
  const lines = f.messages.map((m) => `  ${JSON.stringify(m)}`).join(',\n');
  return `{\n "producer": ${JSON.stringify(f.producer)},\n "description": ${JSON.stringify(f.description)},\n "messages": [\n${lines}\n ]\n}\n`;
}
