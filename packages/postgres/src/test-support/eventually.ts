/** Resolves once `condition()` holds (checked every 100 ms), or rejects after `ms` saying what it waited for. */
export async function eventually(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
