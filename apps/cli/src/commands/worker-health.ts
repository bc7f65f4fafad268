import type { PostgresBusEvent, PostgresBusHealth } from '@nanobot/postgres';

function ago(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  return seconds < 60 ? `${seconds.toFixed(1)} s ago` : `${Math.round(seconds / 60)} min ago`;
}

/** One line for an operator: the worker's bus health (what `nanobot worker` logs). Pure. */
export function formatWorkerHealth(health: PostgresBusHealth, now: number = Date.now()): string {
  const parts = [
    `${health.jobsTaken} job(s) taken`,
    `${health.turnsCompleted} turn(s) done`,
    ...(health.turnsFenced > 0 ? [`${health.turnsFenced} given up (lost their session)`] : []),
    `${health.activeTurns} running`,
    `last job lookup ${ago(health.lastPollAt, now)}${health.pollErrors > 0 ? ` (${health.pollErrors} failed in a row)` : ''}`,
    `lease renewed ${ago(health.lastLeaseRenewalAt, now)}${health.leaseHeld ? '' : ' (NOT held)'}`,
    `runner ${health.runnerRunning ? 'running' : 'restarting'}${health.runnerStarts > 1 ? `, restarted ${health.runnerStarts - 1}×` : ''}`,
    ...(health.pendingPublishes > 0 ? [`${health.pendingPublishes} publish(es) waiting for the database`] : []),
  ];
  return `health ${health.status}: ${parts.join(', ')}`;
}

/** One line for a bus event an operator should see, or null for routine ones. Pure. */
export function formatBusEvent(event: PostgresBusEvent): string | null {
  const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  switch (event.type) {
    case 'runner_started':
      return event.starts > 1 ? `job runner started again (start ${event.starts})` : null;
    case 'runner_failed':
      return `job runner ${event.reason}${event.error ? `: ${reason(event.error)}` : ''}; retrying in ${event.retryInMs} ms`;
    case 'runner_deaf':
      return `job runner stopped taking jobs (${event.pollErrors} failed lookups, idle ${Math.round(event.idleMs / 1000)} s); replacing it`;
    case 'lease_lost':
      return `lease not renewed for ${Math.round(event.silentMs)} ms: stopped the turns of ${event.sessions.join(', ')} (other workers take them over)`;
    case 'turn_fenced':
      return `turn of ${event.sessionKey} given up: ${event.reason}`;
    case 'takeover':
      return `took over the jobs of ${event.workers.length} dead worker slot(s)`;
    case 'publish_failed':
      return `gave up publishing ${event.idempotencyKey}: ${reason(event.error)}`;
    case 'publish_retry':
      return null;
  }
}
