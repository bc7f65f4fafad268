// Prints the README's table of targets, rendered from the declared profiles:
//   node --conditions=source --import tsx scripts/targets-table.ts
import { targetsTable } from '../src/test-support/targets-table.js';

console.log(targetsTable());
