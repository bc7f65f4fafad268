import { buildCliAgent } from '../build-cli-agent.js';
import { columnsOf, wantsColor, type CliIo } from '../cli-io.js';
import { displayWidth, fitWidth, wrapWidth } from '../terminal-width.js';
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
    // Laid out for the terminal (80 columns on a pipe): the name column, then the description cut
    // to what is left, then the details wrapped under it.
    const columns = columnsOf(io, io.stdout);
    const nameWidth = Math.min(Math.max(...definitions.map((d) => displayWidth(d.function.name)), 4), Math.floor(columns / 3));
    const indent = ' '.repeat(nameWidth + 2);
    io.stdout.write(`${wrapWidth(`${definitions.length} tools (workspace ${settings.workspace})`, columns)}\n${wrapWidth(cli.sandboxLine, columns)}\n\n`);
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
      const description = fitWidth((definition.function.description ?? '').split('\n')[0].replace(/\s+/g, ' ').trim(), columns - nameWidth - 2);
      const shownName = displayWidth(name) > nameWidth ? name : name.padEnd(nameWidth);
      const first = displayWidth(name) > nameWidth ? `${renderer.paint('bold', name)}\n${indent}${description}` : `${renderer.paint('bold', shownName)}  ${description}`;
      io.stdout.write(`${first}\n${indent}${renderer.paint('dim', wrapWidth(meta, columns, indent))}\n`);
    }
    return 0;
  } finally {
    await cli.close();
  }
}
