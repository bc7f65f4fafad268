import type { CliIo } from '../cli-io.js';
import { wantsColor } from '../cli-io.js';
import { CliError } from '../cli-error.js';
import { formatProviders } from '../format-providers.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings } from '../resolve-settings.js';
import { TerminalRenderer } from '../terminal-renderer.js';

/** The width to fit: the terminal's, else `COLUMNS`, else none (a pipe gets whole lines). */
function outputWidth(io: CliIo): number {
  const columns = (io.stdout as { columns?: number }).columns;
  if (io.stdout.isTTY && typeof columns === 'number' && columns > 0) return columns;
  const env = Number(io.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : Number.POSITIVE_INFINITY;
}

/**
 * `nanobot providers`: the registry as this configuration sees it — every provider with the
 * variable its key is read from and its base URL, the configured ones marked (environment
 * variables, the config file's `providers`), and what a run with these flags would use.
 * `--json` prints the same as data. Talks to no provider.
 */
export async function providersCommand(flags: CliFlags, io: CliIo): Promise<number> {
  // The config file and workspace as `run` resolves them; the model choice is made below.
  const settings = await resolveSettings({ flags, env: io.env, cwd: io.cwd, offline: true });
  const { listProviders } = await import('@nanobot/providers');
  const name = flags.provider ?? (io.env.NANOBOT_PROVIDER || undefined) ?? settings.config.provider;
  const model = flags.model ?? (io.env.NANOBOT_MODEL || undefined) ?? settings.config.model;
  const baseUrl = flags['base-url'] ?? settings.config.baseUrl;
  let overview;
  try {
    overview = listProviders({
      ...(name !== undefined && name !== 'offline' ? { provider: name } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(settings.config.apiKey !== undefined ? { apiKey: settings.config.apiKey } : {}),
      ...(settings.config.providers !== undefined ? { providers: settings.config.providers } : {}),
      env: io.env,
    });
  } catch (error) {
    throw new CliError('CLI_PROVIDER', (error as Error).message, { cause: error });
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(overview, null, 2)}\n`);
    return 0;
  }
  const renderer = new TerminalRenderer({ out: io.stdout, err: io.stderr, color: wantsColor(io, flags['no-color'], io.stdout), spinner: false });
  io.stdout.write(formatProviders(overview, outputWidth(io), (style, text) => renderer.paint(style, text)));
  return 0;
}
