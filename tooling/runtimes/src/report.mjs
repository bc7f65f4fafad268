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
  const c = report.counts;
  const what = {
    conformance: `conformance ${c.cases} cases + ${c.sessions} sessions`,
    dialects: `dialects ${c.dialectSessions} sessions x 4 dialects x 2 budgets`,
    tools: `tools ${c.toolCases} cases + tools-core`,
    providers: `providers ${c.dialectSessions} sessions x 3 providers x chat/stream + registry`,
  };
  const out = [`runtime harness: ${report.programs.map((p) => what[p]).join('; ')}; each compared byte for byte with Node 20`, '', table(header, lines), ''];
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
  out.push('', `setup ${seconds(report.setupMs)}, total ${seconds(report.totalMs)} (${report.jobs} runtimes at a time; load average ${report.load.average1m} on ${report.load.cpus} CPUs at the start)`);
  out.push(`runtimes: ${report.runtimes.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.map((r) => r.id).join(', ')})` : ''}`);
  return out.join('\n');
}

/**
 * The report as vitest's JSON reporter writes one (what scripts/sum-test-reports.mjs sums): one
 * assertion per runtime and program, failed with its reason when it does not pass.
 */
export function vitestShaped(report, file) {
  const assertions = [];
  for (const row of report.runtimes) {
    for (const [name, p] of Object.entries(row.programs)) {
      const status = row.verdict.status[name];
      const ok = p.ok && (p.identical === true || (status.startsWith('baseline') && !(p.reference?.mismatches.length > 0)));
      const why = !p.ok ? `${p.stage} fails: ${p.error}` : p.difference ? `differs from Node 20 at "${p.difference.id}" ${p.difference.path}: ${p.difference.baseline} vs ${p.difference.other}` : p.reference?.mismatches.length ? `${p.reference.mismatches.length} reference mismatches` : '';
      assertions.push({ fullName: `runtimes ${row.id} ${name}`, status: ok ? 'passed' : 'failed', duration: p.ms ?? 0, ...(ok ? {} : { failureMessages: [why] }) });
    }
  }
  const failed = assertions.filter((a) => a.status === 'failed').length;
  return {
    numPassedTests: assertions.length - failed,
    numFailedTests: failed,
    success: failed === 0,
    testResults: [{ name: file, status: failed ? 'failed' : 'passed', assertionResults: assertions }],
  };
}
