import type { ProvidersOverview } from '@nanobot/providers';

/** How `formatProviders` styles text (the terminal renderer's `paint`, or plain). Pure, must not throw. */
export type Paint = (style: 'bold' | 'dim' | 'green' | 'red', text: string) => string;

const plain: Paint = (_style, text) => text;

/** `text` broken at spaces into lines of at most `max` characters (a longer word is clipped). Pure. */
function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (next.length <= max) line = next;
    else {
      if (line !== '') lines.push(line);
      line = word.length <= max ? word : `${word.slice(0, max - 1)}…`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The narrowest width at which the base URL still gets a column of its own. */
const ONE_LINE_MIN_URL = 24;

/**
 * `nanobot providers` as text that fits `width` columns: a summary line (what a run would use),
 * then one row per provider — `✓` when configured, its name, the variable its key is read from,
 * its base URL — with what configures it and why a provider is refused below the row. Too
 * narrow for the URL column, each URL goes on its own line under its name; every line is
 * clipped to `width`. Pure.
 */
export function formatProviders(overview: ProvidersOverview, width: number, paint: Paint = plain): string {
  const rows = overview.providers;
  const nameWidth = Math.max(4, ...rows.map((r) => r.name.length));
  const keyWidth = Math.max(12, ...rows.map((r) => (r.envKey ?? '—').length));
  const urlColumn = 2 + nameWidth + 2 + keyWidth + 2;
  const oneLine = width - urlColumn >= ONE_LINE_MIN_URL;
  const max = Math.max(20, width);
  // Clipped, never re-spaced: the columns are made of padding.
  const fit = (line: string): string => (line.length <= max ? line : `${line.slice(0, max - 1)}…`);
  const out: string[] = [];
  const configured = rows.filter((r) => r.configuredBy).length;
  out.push(...wrap(`${rows.length} providers, ${configured} configured (✓).`, max));
  if (overview.chosen) {
    out.push(...wrap(`A run now uses ${overview.chosen.provider} with model ${overview.chosen.model} (chosen by ${overview.chosen.rule.replace(/_/g, ' ')}); --provider <name> picks another.`, max));
  } else if (overview.problem) {
    out.push(...wrap(`Nothing can be chosen: ${overview.problem}`, max));
  } else {
    out.push(...wrap('Nothing is configured: set a key variable below, or add "providers": { "<name>": { "apiKey": "…" } } to the config file.', max));
  }
  out.push('');
  const header = oneLine ? `  ${'name'.padEnd(nameWidth)}  ${'key variable'.padEnd(keyWidth)}  base URL` : `  ${'name'.padEnd(nameWidth)}  key variable`;
  out.push(paint('dim', fit(header)));
  for (const row of rows) {
    const mark = row.configuredBy ? paint('green', '✓') : row.refused ? paint('red', '✗') : ' ';
    const key = row.envKey ?? '—';
    const url = row.baseUrl ?? (row.backend === 'bedrock' ? "(its AWS region's endpoint)" : '(set its base URL)');
    if (oneLine) {
      const text = fit(`  ${row.name.padEnd(nameWidth)}  ${key.padEnd(keyWidth)}  ${url}`).slice(2);
      out.push(`${mark} ${paint('bold', text.slice(0, nameWidth))}${text.slice(nameWidth)}`);
    } else {
      const text = fit(`  ${row.name.padEnd(nameWidth)}  ${key}`).slice(2);
      out.push(`${mark} ${paint('bold', text.slice(0, nameWidth))}${text.slice(nameWidth)}`);
      out.push(paint('dim', fit(`    ${url}`)));
    }
    const notes = [row.configuredBy ? `configured by ${row.configuredBy}` : '', row.refused ? `refused: ${row.refused}` : ''].filter(Boolean);
    if (notes.length > 0) out.push(paint('dim', fit(`    ${notes.join('; ')}`)));
  }
  return `${out.join('\n')}\n`;
}
