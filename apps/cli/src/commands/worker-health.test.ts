import { describe, expect, it } from 'vitest';
import type { PostgresBusHealth } from '@nanobot/postgres';
import { formatBusEvent, formatWorkerHealth } from './worker-health.js';

const now = Date.parse('2025-06-01T12:00:10.000Z');
const healthy: PostgresBusHealth = {
  status: 'ok',
  worker: true,
  runnerRunning: true,
  runnerStarts: 1,
  lastPollAt: '2025-06-01T12:00:09.500Z',
  pollErrors: 0,
  jobsTaken: 4,
  turnsCompleted: 3,
  turnsFenced: 0,
  activeTurns: 1,
  leaseRenewals: 20,
  lastLeaseRenewalAt: '2025-06-01T12:00:09.000Z',
  leaseHeld: true,
  pendingPublishes: 0,
};

describe('nanobot worker health lines', () => {
  it('says what the worker does and when it last reached the database', () => {
    expect(formatWorkerHealth(healthy, now)).toBe(
      'health ok: 4 job(s) taken, 3 turn(s) done, 1 running, last job lookup 0.5 s ago, lease renewed 1.0 s ago, runner running',
    );
  });

  it('names what is wrong when degraded', () => {
    const line = formatWorkerHealth({ ...healthy, status: 'degraded', runnerRunning: false, runnerStarts: 3, pollErrors: 4, leaseHeld: false, turnsFenced: 2, lastPollAt: null, pendingPublishes: 1 }, now);
    expect(line).toBe(
      'health degraded: 4 job(s) taken, 3 turn(s) done, 2 given up (lost their session), 1 running, last job lookup never (4 failed in a row), lease renewed 1.0 s ago (NOT held), runner restarting, restarted 2×, 1 publish(es) waiting for the database',
    );
  });

  it('reports the events an operator acts on, not routine ones', () => {
    expect(formatBusEvent({ type: 'runner_started', starts: 1 })).toBeNull();
    expect(formatBusEvent({ type: 'publish_retry', idempotencyKey: 'k', error: new Error('x') })).toBeNull();
    expect(formatBusEvent({ type: 'runner_failed', reason: 'failed to start', error: new Error('connect ECONNREFUSED\nstack'), retryInMs: 500 })).toBe(
      'job runner failed to start: connect ECONNREFUSED; retrying in 500 ms',
    );
    expect(formatBusEvent({ type: 'lease_lost', sessions: ['telegram:1'], silentMs: 3100 })).toBe(
      'lease not renewed for 3100 ms: stopped the turns of telegram:1 (other workers take them over)',
    );
    expect(formatBusEvent({ type: 'takeover', workers: ['a', 'b'] })).toBe('took over the jobs of 2 dead worker slot(s)');
  });
});
