import { buildCliAgent } from '../build-cli-agent.js';
import { wantsColor, type CliIo } from '../cli-io.js';
import { clip } from '../format-tool-args.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings } from '../resolve-settings.js';
import { TerminalRenderer } from '../terminal-renderer.js';

/**
 * `nanobot tools`: the main agent's registry as a turn would see it (built-ins, `message`,
 * `spawn`, then the config file's MCP tools). `--json` prints `registry.definitions()` exactly as
 * sent to the model, in its stable order.
 */
export async function toolsCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const settings = await resolveSettings({ flags, env: io.env, cwd: io.cwd, offline: true });
  const renderer = new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color'], io.stdout), spinner: false });
  const cli = await buildCliAgent(settings, { notice: (line) => renderer.note(line) });
  try {
    const definitions = cli.agent.tools.definitions();
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(definitions, null, 2)}\n`);
      return 0;
    }
    const servers = new Map((cli.mcp?.tools() ?? []).map((info) => [info.name, info.server]));
    const width = Math.max(...definitions.map((d) => d.function.name.length), 4);
    io.stdout.write(`${definitions.length} tools (workspace ${settings.workspace})\n${cli.sandboxLine}\n\n`);
    for (const definition of definitions) {
      const name = definition.function.name;
      const tool = cli.agent.tools.get(name);
      const flagsText = [
        tool?.readOnly ? 'read-only' : null,
        tool?.exclusive ? 'exclusive' : null,
        tool?.concurrencySafe ? 'concurrent' : null,
      ].filter(Boolean);
      const server = servers.get(name);
      const meta = [`scopes: ${(tool?.scopes ?? ['core']).join(',')}`, ...flagsText, ...(server ? [`mcp server: ${server}`] : [])].join(' · ');
      const description = clip((definition.function.description ?? '').split('\n')[0], 100);
      io.stdout.write(`${renderer.paint('bold', name.padEnd(width))}  ${description}\n${' '.repeat(width)}  ${renderer.paint('dim', meta)}\n`);
    }
    return 0;
  } finally {
    await cli.close();
  }
}
