// Prints the README's rule tables, or with --write puts them between the README's rules markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rulesTable } from '../src/rules-table.js';

const START = '<!-- rules:start -->\n';
const END = '\n<!-- rules:end -->';
if (process.argv.includes('--write')) {
  const file = join(import.meta.dirname, '..', 'README.md');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.slice(0, text.indexOf(START) + START.length) + rulesTable() + text.slice(text.indexOf(END)));
} else console.log(rulesTable());
