// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, for CLI tests.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = [
  {
    name: 'shout',
    description: 'Upper-cases a text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'what to shout' } }, required: ['text'] },
  },
];

// TINY_DELAY_MS: answer `initialize` that much later (a server that is slow to start).
const delay = Number(process.env.TINY_DELAY_MS ?? 0);

createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return; // notifications
  if (msg.method === 'initialize') {
    setTimeout(() => send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1.0.0' } } }), delay);
  } else if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools } });
  } else if (msg.method === 'tools/call') {
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: String(msg.params?.arguments?.text ?? '').toUpperCase() }] } });
  } else if (msg.method === 'ping') {
    send({ jsonrpc: '2.0', id: msg.id, result: {} });
  } else {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  }
});
