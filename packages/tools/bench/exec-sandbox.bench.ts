// What the exec sandbox costs per call for a trivial command (`true`): a plain spawn, runCommand
// without a sandbox, and runCommand under bubblewrap (with and without the per-call pids
// cgroup). Prints figures and the extra milliseconds per call measured in this one run; asserts
// nothing about time (goal: <= 20 ms extra per call). Also prints how long after a 1 s deadline a
// `set -m; sleep 8` call returns (goal: well within 1 s). Run: node scripts/bench.mjs exec-sandbox
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BubblewrapSandbox, NoSandbox, probeBubblewrap, runCommand, type Sandbox } from '@nanobot/tools';

const N = Number(process.env.BENCH_EXEC_N ?? 60);
const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };

/** Runs the variants round-robin (so load swings hit all alike) and prints each one's median. */
async function compare(variants: Record<string, () => Promise<unknown>>): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < N + 5; i++) {
    for (const [label, fn] of Object.entries(variants)) {
      const start = performance.now();
      await fn();
      if (i >= 5) samples[label].push(performance.now() - start);
    }
  }
  const medians: Record<string, number> = {};
  for (const [label, list] of Object.entries(samples)) {
    list.sort((a, b) => a - b);
    medians[label] = list[Math.floor(list.length / 2)];
    console.log(`${label.padEnd(52)} ${medians[label].toFixed(2).padStart(8)} ms/call (median of ${list.length})`);
  }
  return medians;
}

const plainSpawn = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/bash', ['-c', 'true'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', reject);
    child.on('close', () => resolve());
  });

const workspace = await mkdtemp(join(tmpdir(), 'nanobot-bench-exec-'));
try {
  const viaRun = (sandbox: Sandbox) => () =>
    runCommand({ shell: ['/bin/bash', '-c'], command: 'true', cwd: workspace, workspace, env, timeoutMs: 10_000, keepChars: 10_000, sandbox });
  const probe = probeBubblewrap();
  if (!probe.ok) {
    console.log(`bubblewrap unavailable (${probe.reason}): install it (apt-get install -y bubblewrap) to measure the sandbox`);
    process.exitCode = 1;
  } else {
    const m = await compare({
      'plain spawn(/bin/bash -c true)': plainSpawn,
      'runCommand, NoSandbox (group + session kill)': viaRun(new NoSandbox()),
      'runCommand, bubblewrap (pidsLimit: 0, no cgroup)': viaRun(new BubblewrapSandbox({ pidsLimit: 0 })),
      'runCommand, bubblewrap + pids cgroup (default)': viaRun(new BubblewrapSandbox()),
    });
    const [plain, none, bwrap, bwrapCgroup] = Object.values(m);
    console.log(`\nextra per call vs plain spawn: NoSandbox ${(none - plain).toFixed(2)} ms; bubblewrap ${(bwrap - plain).toFixed(2)} ms; bubblewrap + cgroup ${(bwrapCgroup - plain).toFixed(2)} ms (goal <= 20 ms)`);
    console.log(`ratio bubblewrap+cgroup / plain spawn: ${(bwrapCgroup / plain).toFixed(2)}x`);

    // How late a call returns after its deadline when its job hides in its own process group.
    console.log('');
    for (const [label, sandbox] of [['NoSandbox', new NoSandbox()], ['bubblewrap', new BubblewrapSandbox()]] as const) {
      const lateness: number[] = [];
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        await runCommand({ shell: ['/bin/bash', '-c'], command: 'set -m; sleep 8', cwd: workspace, workspace, env, timeoutMs: 1000, keepChars: 1000, sandbox });
        lateness.push(performance.now() - start - 1000);
      }
      console.log(`${`'set -m; sleep 8', timeout 1 s, ${label}: returned after deadline +`.padEnd(60)} ${lateness.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    }
  }
} finally {
  await rm(workspace, { recursive: true, force: true });
}
