// A measurement as text: totals, one row per route, the rules each route's stand-in enforced
// with counts and a first example, and what clients refused before sending.
import type { Measurement } from './measure.js';

const pct = (a: number, b: number): string => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);

/** Plain-text report of a measurement (Markdown tables). */
export function formatMeasurement(m: Measurement, options: { examples?: boolean } = {}): string {
  const lines: string[] = [];
  lines.push(`provider rules: ${m.rejected} of ${m.requests} governed requests rejected (${pct(m.rejected, m.requests)}); ${m.histories} histories, ${m.requestPoints} request points x ${m.budgets.join(' / ')}; ${(m.durationMs / 1000).toFixed(1)} s`);
  lines.push('');
  lines.push('| route | model | requests | rejected | recorded | model-switch | client refused |');
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const t of m.routes) {
    const refused = Object.values(t.clientErrors).reduce((a, b) => a + b, 0);
    lines.push(`| ${t.route} | ${t.model} | ${t.requests} | ${t.rejected} (${pct(t.rejected, t.requests)}) | ${t.byKind.recorded.rejected}/${t.byKind.recorded.requests} | ${t.byKind['model-switch'].rejected}/${t.byKind['model-switch'].requests} | ${refused} |`);
  }
  lines.push('');
  lines.push('| route | rule | rejected requests |' + (options.examples ? ' first example |' : ''));
  lines.push('| --- | --- | ---: |' + (options.examples ? ' --- |' : ''));
  for (const t of m.routes) {
    for (const [rule, n] of Object.entries(t.byRule).sort((a, b) => b[1] - a[1])) lines.push(`| ${t.route} | ${rule} | ${n} |` + (options.examples ? ` ${t.examples[rule]!.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |` : ''));
    for (const [name, n] of Object.entries(t.clientErrors)) lines.push(`| ${t.route} | client refused: ${name} | ${n} |` + (options.examples ? ` ${t.examples[`client:${name}`]!.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |` : ''));
  }
  const mismatches = m.routes.flatMap((t) => t.mismatches.map((x) => `${t.route}: ${x}`));
  if (mismatches.length > 0) {
    lines.push('');
    lines.push(`client/server disagreements (${mismatches.length}):`);
    lines.push(...mismatches.slice(0, 20).map((x) => `- ${x}`));
  }
  return lines.join('\n');
}
