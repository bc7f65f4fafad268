import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_BIN, cleanEnv, tempDir } from './test-support/spawn-cli.js';

/**
 * Runs the CLI with a stdout pipe whose reading end is closed before the child writes (as
 * `| head -1` does once it has its line), and reports the exit status and stderr.
 */
function runWithClosedStdout(args: string[], input = ''): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env: cleanEnv(), cwd: tempDir('cwd'), stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
    child.stdin.end(input);
  });
}

describe('a closed stdout pipe ends the CLI quietly', () => {
  const workspace = tempDir('ws');
  writeFileSync(join(workspace, 'a.txt'), 'x\n');
  const common = ['-w', workspace, '--sessions-dir', tempDir('s')];
  const modes: [string, string[], string?][] = [
    ['run --json', ['run', '--json', '-m', 'hello', ...common]],
    ['run (human)', ['run', '-m', 'hello', ...common]],
    ['run --demo --json', ['run', '--demo', '--json']],
    ['tools', ['tools', ...common]],
    ['tools --json', ['tools', '--json', ...common]],
    ['--help', ['--help']],
    ['chat on a pipe', ['chat', ...common], 'hello\nhello again\n'],
  ];
  for (const [name, args, input] of modes) {
    it(`${name}: exit 0, no stack trace`, async () => {
      const result = await runWithClosedStdout(args, input);
      expect(result.stderr).not.toMatch(/EPIPE|Error:|at .*\.js:\d+/);
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
    }, 60_000);
  }
});
