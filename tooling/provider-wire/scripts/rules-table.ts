// Prints the README's rule tables (paste between the README's rules markers).
import { rulesTable } from '../src/rules-table.js';

console.log(rulesTable());
