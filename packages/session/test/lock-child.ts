// Child of the file-lock test: increments a counter file `rounds` times, each read-modify-write
// under withFileLock. Lost updates would show up as a final count below processes × rounds.
import { readFile, writeFile } from 'node:fs/promises';
import { withFileLock } from '../src/file-lock.js';

const [counterFile, rounds] = process.argv.slice(2);
for (let i = 0; i < Number(rounds); i += 1) {
  await withFileLock(`${counterFile}.lock`, async () => {
    const value = Number(await readFile(counterFile, 'utf8'));
    await new Promise((resolve) => setImmediate(resolve));
    await writeFile(counterFile, String(value + 1));
  });
}
