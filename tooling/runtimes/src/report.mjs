// The harness's verdicts and the printed report: per runtime, does it load, are the outputs
// identical to Node 20's, and where do they first differ.

/** Whether a runtime row passes, and a short status per program. */
export function verdictOf(row, isBaseline) {
  const status = {};
  let pass = true;
  for (const [name, p] of Object.entries(row.programs)) {
    if (!p.ok) {
      status[name] = `${p.stage} fails`;
      pass = false;
    } else if (isBaseline) {
      const ref = p.reference;
      const refOk = !ref || ref.mismatches.length === 0;
      status[name] = ref ? `baseline, reference ${ref.matched}/${ref.checked}` : 'baseline';
      if (!refOk) pass = false;
    } else if (p.identical) {
      status[name] = 'identical';
    } else {
      status[name] = p.difference ? 'DIFFERS' : 'no baseline';
      pass = false;
    }
  }
  const loads = Object.values(row.programs).every((p) => p.ok || p.stage === 'run');
  return { pass, loads, status };
}

const seconds = (ms) => (ms === undefined ? '' : `${(ms / 1000).toFixed(1)} s`);

function table(header, lines) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const fmt = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

/** The printed report: a table, then what went wrong where, then one closing line. */
export function formatReport(report) {
  const header = ['runtime', 'version', 'loads', ...report.programs, 'time'];
  const lines = report.runtimes.map((row) => [
    `${row.verdict.pass ? '✓' : '✗'} ${row.id}`,
    row.version,
    row.verdict.loads ? 'yes' : 'no',
    ...report.programs.map((p) => row.verdict.status[p]),
    seconds(row.ms),
  ]);
  const out = [`runtime harness: ${report.counts.cases} conformance cases + ${report.counts.sessions} sessions; dialect test on ${report.counts.dialectSessions} sessions; compared byte for byte with Node 20`, '', table(header, lines), ''];
  for (const row of report.runtimes) {
    const notes = [];
    for (const [name, p] of Object.entries(row.programs)) {
      if (!p.ok) notes.push(`${name}: ${p.stage} fails: ${p.error}`);
      else if (p.difference) notes.push(`${name}: first difference at "${p.difference.id}" ${p.difference.path}: Node 20 ${p.difference.baseline}, here ${p.difference.other}`);
      if (p.reference?.mismatches.length) notes.push(`${name}: ${p.reference.mismatches.length} reference mismatches, first ${p.reference.mismatches.slice(0, 3).map((m) => `${m.id} (${m.why})`).join('; ')}`);
      if (p.probe && Object.keys(p.probe).length && !row.verdict.pass) notes.push(`${name}: ${Object.entries(p.probe).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      if (p.bundleWarnings?.length) notes.push(`${name}: bundler warnings: ${p.bundleWarnings.slice(0, 3).join(' | ')}`);
    }
    if (notes.length) out.push(`${row.id} (${row.how}):`, ...notes.map((n) => `  ${n}`));
  }
  const failed = report.runtimes.filter((r) => !r.verdict.pass);
  out.push('', `setup ${seconds(report.setupMs)}, total ${seconds(report.totalMs)}`);
  out.push(`runtimes: ${report.runtimes.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.map((r) => r.id).join(', ')})` : ''}`);
  return out.join('\n');
}
