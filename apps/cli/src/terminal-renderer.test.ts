import { Writable } from 'node:stream';
import type { RunnerEvent } from '@nanobot/runner';
import { describe, expect, it } from 'vitest';
import { TerminalRenderer } from './terminal-renderer.js';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

function setup() {
  const out = capture();
  const err = capture();
  let clock = 10_000;
  const renderer = new TerminalRenderer({ out: out.stream, err: err.stream, color: false, spinner: false, now: () => clock });
  const advance = (ms: number): void => {
    clock += ms;
  };
  return { renderer, err, advance };
}

const base = { runId: 'r1', sessionKey: 'cli:direct', iteration: 0 } as const;
const start = (callId: string, name: string, args: unknown): RunnerEvent => ({ ...base, type: 'tool_start', callId, name, arguments: args });
const end = (callId: string, name: string, status: 'ok' | 'error' | 'interrupted', durationMs: number, detail = ''): RunnerEvent => ({ ...base, type: 'tool_end', callId, name, status, detail, content: detail, durationMs });

describe('TerminalRenderer tool lines', () => {
  it('shows each call at its start and end with the runner-measured duration and outcome', () => {
    const { renderer, err, advance } = setup();
    renderer.sink(start('c1', 'read_file', { path: 'a.md' }));
    advance(5_000);
    renderer.sink(end('c1', 'read_file', 'ok', 12));
    renderer.sink(start('c2', 'exec', { command: 'false' }));
    renderer.sink(end('c2', 'exec', 'error', 1_500, 'Error: exit code 1'));
    expect(err.text()).toBe(
      ['  ▸ read_file path=a.md', '  ✓ read_file path=a.md ok, 12 ms', '  ▸ exec command=false', '  ✗ exec command=false error, 1.5 s: Error: exit code 1', ''].join('\n'),
    );
  });

  it('an interrupted call shows the time since its start line, whether the runner reports 0 ms or a real figure', () => {
    const { renderer, err, advance } = setup();
    renderer.sink(start('c1', 'exec', { command: 'sleep 30' }));
    advance(3_200);
    renderer.sink(end('c1', 'exec', 'interrupted', 0, 'interrupted'));
    renderer.sink(start('c2', 'exec', { command: 'sleep 9' }));
    advance(2_000);
    renderer.sink(end('c2', 'exec', 'interrupted', 2_000, 'interrupted'));
    expect(err.text()).toContain('⏹ exec command="sleep 30" interrupted after 3.2 s');
    expect(err.text()).toContain('⏹ exec command="sleep 9" interrupted after 2.0 s');
  });
});
