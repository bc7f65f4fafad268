// Child of the file-lock test: takes a lock, says "locked", holds it for `holdMs`, then marks
// `<lock>.done` before releasing. A second writer that got in early would see no `.done` file.
import { writeFile } from 'node:fs/promises';
import { withFileLock } from '../src/file-lock.js';

const [lockPath, holdMs] = process.argv.slice(2);
await withFileLock(lockPath, async () => {
  process.stdout.write('locked\n');
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  await writeFile(`${lockPath}.done`, 'done');
});
