// `pnpm test` must stay green and quick on a loaded machine, so exhaustive exactness runs are
// sized down there and run at full size by `pnpm test:exhaustive` (NANOBOT_EXHAUSTIVE=1).

/** Whether this run is the exhaustive one (`pnpm test:exhaustive` sets `NANOBOT_EXHAUSTIVE=1`). */
export function isExhaustive(env: Record<string, string | undefined> = process.env): boolean {
  return env.NANOBOT_EXHAUSTIVE === '1';
}

/** How many runs (property cases, kills, …): `quick` in `pnpm test`, `full` in `pnpm test:exhaustive`. */
export function runs(quick: number, full: number, env: Record<string, string | undefined> = process.env): number {
  return isExhaustive(env) ? full : quick;
}
