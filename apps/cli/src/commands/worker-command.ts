import { buildCliAgent } from '../build-cli-agent.js';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import type { CliFlags } from '../parse-cli-args.js';
import { resolveSettings } from '../resolve-settings.js';
import { formatBusEvent, formatWorkerHealth } from './worker-health.js';

/**
 * `nanobot worker`: one worker of a PostgreSQL-backed agent (`--database-url`, the config file's
 * `databaseUrl` or NANOBOT_DATABASE_URL). It takes inbound messages as jobs, runs their turns with
 * this workspace's tools and model, and stores the answers for delivery, until Ctrl-C or
 * SIGTERM; then running turns finish and it exits 0 (a second Ctrl-C exits at once, 130). Prints one line when ready and one per turn
 * on stderr, and the bus's health (`health ok: …`) at start, when its status changes and once a
 * minute, plus a line per runner restart, lost lease, given-up turn and takeover.
 */
export async function workerCommand(flags: CliFlags, io: CliIo): Promise<number> {
  const settings = await resolveSettings({ flags, env: io.env, cwd: io.cwd });
  if (settings.databaseUrl === undefined) {
    throw new CliError('CLI_USAGE', 'nanobot worker needs --database-url postgres://… (or databaseUrl in the config file, or NANOBOT_DATABASE_URL)');
  }
  const cli = await buildCliAgent(settings, { notice: (line) => io.stderr.write(`${line}\n`) });
  const database = cli.database!;
  io.stderr.write(`${cli.modelLine}\n`);
  const offSettled = database.bus.onSettled((message, outcome) => {
    const reason = outcome.error !== undefined ? 'failed (will be retried)' : (outcome.result?.stopReason ?? 'command');
    io.stderr.write(`turn ${outcome.sessionKey} (${message.channel}:${message.chatId}): ${reason}\n`);
  });
  io.stdout.write(`worker ${database.bus.processId} ready on ${database.where} (workspace ${settings.workspace})\n`);
  // The bus's health: once at start, whenever its status changes, and once a minute; what went
  // wrong as it happens (runner restarts, lost leases, turns given up, takeovers).
  const offEvents = database.bus.onEvent((event) => {
    const line = formatBusEvent(event);
    if (line !== null) io.stderr.write(`${line}\n`);
  });
  let lastStatus = '';
  let lastLogged = 0;
  const logHealth = (): void => {
    const health = database.bus.health();
    if (health.status === lastStatus && Date.now() - lastLogged < 60_000) return;
    lastStatus = health.status;
    lastLogged = Date.now();
    io.stderr.write(`${formatWorkerHealth(health)}\n`);
  };
  logHealth();
  const healthTimer = setInterval(logHealth, 5000);
  healthTimer.unref();
  // Stay subscribed while stopping: the executable exits at once on a Ctrl-C nobody listens to.
  let interrupts = 0;
  let unsubscribe: () => void = () => undefined;
  await new Promise<void>((resolve) => {
    unsubscribe = io.onInterrupt(() => {
      interrupts += 1;
      if (interrupts === 1) resolve();
      else process.exit(130);
    });
    process.once('SIGTERM', () => resolve());
  });
  io.stderr.write('stopping: running turns finish first…\n');
  offSettled();
  clearInterval(healthTimer);
  offEvents();
  await cli.close();
  unsubscribe();
  io.stdout.write('worker stopped\n');
  return 0;
}
