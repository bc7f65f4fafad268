import { Writable } from 'node:stream';
import type { RunnerEvent } from '@nanobot/runner';
import { describe, expect, it, vi } from 'vitest';
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

function setup(spinner = false) {
  const out = capture();
  const err = capture();
  let clock = 10_000;
  const renderer = new TerminalRenderer({ out: out.stream, err: err.stream, color: false, spinner, now: () => clock });
  const advance = (ms: number): void => {
    clock += ms;
  };
  return { renderer, out, err, advance };
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

describe('TerminalRenderer status line (terminals)', () => {
  it('shows what the agent is doing and for how long while the model thinks, clears it for the streamed reply, and stops at turn end', () => {
    vi.useFakeTimers();
    try {
      const { renderer, out, err, advance } = setup(true);
      renderer.sink({ ...base, type: 'model_start', messageCount: 2, toolCount: 3, purpose: 'turn' } as RunnerEvent);
      expect(err.text()).toMatch(/\r\u001b\[2K\S thinking… 0\.0s$/);
      advance(1_500);
      vi.advanceTimersByTime(100);
      expect(err.text()).toMatch(/\r\u001b\[2K\S thinking… 1\.5s$/);
      renderer.sink({ ...base, type: 'model_delta', delta: 'Hello ' });
      renderer.sink({ ...base, type: 'model_delta', delta: 'there.' });
      // The status line is wiped before the reply text appears, and not redrawn mid-line.
      expect(err.text().endsWith('\r\u001b[2K')).toBe(true);
      vi.advanceTimersByTime(500);
      expect(err.text().endsWith('\r\u001b[2K')).toBe(true);
      expect(out.text()).toBe('Hello there.');
      renderer.sink({ ...base, type: 'turn_end', stopReason: 'completed', finalContent: 'Hello there.', error: null, usage: {}, iterations: 1, toolsUsed: [] } as unknown as RunnerEvent);
      const after = err.text();
      vi.advanceTimersByTime(1_000);
      expect(err.text()).toBe(after);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('draws nothing of the kind on a pipe', () => {
    const { renderer, err } = setup(false);
    renderer.sink({ ...base, type: 'model_start', messageCount: 2, toolCount: 3, purpose: 'turn' } as RunnerEvent);
    expect(err.text()).toBe('');
  });
});

describe('TerminalRenderer exec exit codes', () => {
  it('draws a command that exited non-zero as a failure, not "ok"', () => {
    const { renderer, err } = setup();
    const done = (callId: string, content: string): RunnerEvent => ({ ...base, type: 'tool_end', callId, name: 'exec', status: 'ok', detail: '', content, durationMs: 4 });
    renderer.sink(start('c1', 'exec', { command: 'nosuchcmd' }));
    renderer.sink(done('c1', '\n\nSTDERR:\nsh: 1: nosuchcmd: not found\n\n\nExit code: 127'));
    renderer.sink(start('c2', 'exec', { command: 'true' }));
    renderer.sink(done('c2', '\nExit code: 0'));
    const lines = err.text().split('\n').filter((l) => l.includes('exec'));
    expect(lines[1]).toBe('  ✗ exec command=nosuchcmd exit 127, 4 ms');
    expect(lines[3]).toBe('  ✓ exec command=true ok, 4 ms');
  });
});

describe('TerminalRenderer provider retries, fallbacks and the bill', () => {
  it('words a provider wait as the reference does, names a fallback, and prints the turn cost', () => {
    const { renderer, err } = setup();
    renderer.sink({ ...base, type: 'retry', reason: 'provider', provider: 'openai', attempt: 1, delayMs: 3000, detail: 'rate_limit (429)' });
    renderer.sink({ ...base, type: 'fallback', from: 'openai:gpt-4o', to: 'anthropic:claude-sonnet-4-5', reason: 'server (503)' });
    renderer.sink({
      runId: 'r1', sessionKey: 'cli:direct', type: 'turn_end', stopReason: 'completed', finalContent: 'x', error: null, iterations: 1, toolsUsed: [],
      usage: { inputTokens: 12_400, outputTokens: 310, cachedTokens: 9_800, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 2, contextTokens: 6_000, cost: { uncachedInput: 0.0065, cachedInput: 0.01225, cacheWrite: 0, output: 0.0031, total: 0.02185 } },
    });
    expect(err.text()).toBe(
      '  ↻ Model request failed, retry in 3s (attempt 1). (rate_limit (429))\n' +
        '  ↪ openai:gpt-4o failed (server (503)); trying anthropic:claude-sonnet-4-5\n' +
        'this turn: 12,400 tokens in (9,800 cached), 310 out, $0.0219\n',
    );
  });

  it("adds the last request's estimate, calibrated count and billed input to the bill", () => {
    const { renderer, err } = setup();
    const end = (fields: object): RunnerEvent => ({
      ...base, type: 'model_end', iteration: 1, finishReason: 'stop', toolCallCount: 0,
      usage: { inputTokens: 6_200, outputTokens: 10 }, response: { content: 'x', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 6_200, outputTokens: 10 } }, ...fields,
    });
    const turnEnd: RunnerEvent = {
      runId: 'r1', type: 'turn_end', stopReason: 'completed', finalContent: 'x', error: null, iterations: 1, toolsUsed: [],
      usage: { inputTokens: 6_200, outputTokens: 10, cachedTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 1, contextTokens: 6_200, cost: { uncachedInput: 0.0186, cachedInput: 0, cacheWrite: 0, output: 0.00015, total: 0.0189 } },
    };
    renderer.sink(end({ tokensEstimated: 6_100, tokensCalibrated: 6_300, tokensActual: 6_200 }));
    renderer.sink(turnEnd);
    renderer.sink(end({ tokensEstimated: 6_100, tokensCalibrated: 6_100, tokensActual: 6_200 }));
    renderer.sink(turnEnd);
    renderer.sink(end({ tokensEstimated: 6_100 }));
    renderer.sink(turnEnd);
    expect(err.text().split('\n').filter((l) => l.startsWith('this turn'))).toEqual([
      'this turn: 6,200 tokens in, 10 out, $0.0189; last request: 6,200 tokens billed, 6,100 estimated (6,300 expected after calibration)',
      'this turn: 6,200 tokens in, 10 out, $0.0189; last request: 6,200 tokens billed, 6,100 estimated',
      'this turn: 6,200 tokens in, 10 out, $0.0189',
    ]);
  });

  it('prints no bill for a model without known prices', () => {
    const { renderer, err } = setup();
    renderer.sink({ runId: 'r1', type: 'turn_end', stopReason: 'completed', finalContent: 'x', error: null, iterations: 1, toolsUsed: [], usage: { inputTokens: 5, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 1, contextTokens: 5 } });
    expect(err.text()).toBe('');
  });
});

describe('TerminalRenderer in a narrow terminal', () => {
  it('wraps notes and cuts tool lines and the status to the width, and shows a failed turn\'s error once', () => {
    vi.useFakeTimers();
    try {
      const out = capture();
      const err = capture();
      const renderer = new TerminalRenderer({ out: out.stream, err: err.stream, color: false, spinner: true, width: 40, now: () => 0 });
      renderer.note('Ctrl-C stops a turn, twice quits; Ctrl-D or /exit quits; /help lists commands.');
      renderer.sink(start('c1', 'read_file', { path: 'a/very/long/path/to/some/file/deep/inside/the/workspace.md', limit: 20 }));
      renderer.sink(end('c1', 'read_file', 'ok', 12));
      renderer.status('connecting MCP servers: 1 of 2 ready (github, a-very-long-server-name)…');
      renderer.stop();
      renderer.sink({ runId: 'r1', type: 'turn_end', stopReason: 'error', finalContent: 'Error calling LLM: 400 model does not exist', error: 'Error calling LLM: 400 model does not exist', iterations: 1, toolsUsed: [], usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 1, contextTokens: 0 } });
      const lines = err
        .text()
        .split(/\r|\n/)
        .map((l) => l.replace(/\u001b\[2K/g, ''));
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
      expect(err.text()).toContain('✗ the turn failed: Error calling LLM');
      expect(renderer.alreadyShown('Error calling LLM: 400 model does not exist')).toBe(true);
      expect(renderer.alreadyShown('A real answer.')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
