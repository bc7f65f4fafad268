// The README's table of targets, rendered from the declared profiles (so the README cannot drift
// from the rules the governor applies). `src/targets-readme.test.ts` checks the README holds it.
import { documentedRules } from '../steps/target/profiles/docs/index.js';
import { GOVERN_TARGETS } from '../steps/target/govern-target.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One Markdown table: target, rule, what the provider says (linked), what the governor does, report reasons. */
export function targetsTable(): string {
  const rows = ['| target | rule | the provider says | the governor | report `reason` |', '| --- | --- | --- | --- | --- |'];
  for (const target of GOVERN_TARGETS) {
    for (const r of documentedRules(target)) {
      rows.push(`| \`${target}\` | \`${r.id}\` | [${cell(r.requires)}](${r.source}) | ${cell(r.does)} | ${(r.reasons ?? []).map((x) => `\`${x}\``).join(', ') || '–'} |`);
    }
  }
  return rows.join('\n');
}
