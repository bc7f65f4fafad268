// badlogic-pi-mono__before-compaction.json recorded a real Anthropic 400 at message 835:
// "`tool_use` ids were found without `tool_result` blocks immediately after:
// toolu_019tYDrbzifrra2KYzmYqWvk". The stored log answers that call (785 → 786); the context pi
// assembled at the time did not. We rebuild what a careless client sends (the request for the
// turn at 834 with the result at 786 lost, or a history cut to start at 786), show the wire
// rules reject it with the recorded error, and that the governed copy, converted by the
// provider's own Anthropic conversion, is accepted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { BACKFILL_CONTENT, enforceRoleAlternation, govern, type GovernOptions } from '@nanobot/governor';
import { toAnthropicMessages } from '@nanobot/providers/anthropic';
import { anthropicWireViolations } from './anthropic-wire-rules.js';
import { carelessAnthropicRequest } from './careless-anthropic-request.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const FILE = 'badlogic-pi-mono__before-compaction.json';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

const session = deepFreeze(JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as Message[]);
const marker = (JSON.parse(readFileSync(join(dir, 'MANIFEST.json'), 'utf8')) as { transcripts: Record<string, { conversion: { markers: { kind: string; message_index?: number; errorMessage?: string }[] } }> })
  .transcripts[FILE].conversion.markers.find((m) => m.errorMessage?.startsWith('400'))!;
// The id is read from the recorded error, not typed in here.
const rejectedId = /immediately after: (toolu_[A-Za-z0-9]+)/.exec(marker.errorMessage!)![1];

const CALL = 785;
const RESULT = 786;
const TURN = 834; // the user turn ("yo") whose request got the 400 (recorded at 835)

/** A client whose trimming lost the result at 786 (e.g. a compaction cut between call and result). */
const lostResult = (): Message[] => [...session.slice(0, RESULT), ...session.slice(RESULT + 1, TURN + 1)];
/** A client that keeps "the last N messages" and cut right at the result. */
const cutAtResult = (): Message[] => session.slice(RESULT, TURN + 1);

const OPUS: GovernOptions = { contextWindowTokens: 200_000, maxOutputTokens: 32_000 };

describe(`${FILE}: the recorded Anthropic 400, rebuilt and prevented`, () => {
  it('the recording: message 835 holds the 400 for the call at 785, whose result is stored right after it', () => {
    expect(marker.message_index).toBe(835);
    expect(session[CALL].tool_calls!.map((c) => c.id)).toEqual([rejectedId]);
    expect(session[RESULT]).toMatchObject({ role: 'tool', tool_call_id: rejectedId });
    expect(session[TURN]).toMatchObject({ role: 'user', content: 'yo' });
    // Sent in stored order, that call is answered: the 400 came from the context pi assembled.
    const stored = anthropicWireViolations(carelessAnthropicRequest(session.slice(0, TURN + 1)));
    expect(stored.filter((v) => v.includes(rejectedId))).toEqual([]);
  });

  it('the checker accepts an undamaged recording sent as it stands (no false alarms)', () => {
    const clean = JSON.parse(readFileSync(join(dir, 'marot-spotter__cc-fa812bfe.json'), 'utf8')) as Message[];
    expect(anthropicWireViolations(carelessAnthropicRequest(clean))).toEqual([]);
  });

  it('a careless client that lost the result at 786 gets exactly the recorded error', () => {
    const violations = anthropicWireViolations(carelessAnthropicRequest(lostResult()));
    const hit = violations.filter((v) => v.includes(rejectedId));
    expect(hit).toHaveLength(1);
    expect(hit[0]).toMatch(/^messages\.\d+: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_019tYDrbzifrra2KYzmYqWvk\. Each `tool_use` block must have a corresponding `tool_result` block in the next message\.$/);
    // The recorded wording, minus the request-specific index.
    expect(marker.errorMessage).toContain(hit[0].replace(/^messages\.\d+: /, '').split('. Each')[0]);
  });

  it('a careless client that cut its history at 786 sends an orphan result first', () => {
    const violations = anthropicWireViolations(carelessAnthropicRequest(cutAtResult()));
    expect(violations).toContain(
      'messages.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_019tYDrbzifrra2KYzmYqWvk. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('the provider conversion alone does not save the careless request (the governor is what fixes it)', () => {
    const violations = anthropicWireViolations(toAnthropicMessages(lostResult()).messages);
    expect(violations.some((v) => v.includes(rejectedId))).toBe(true);
  });

  describe.each([
    ['the result at 786 lost', lostResult],
    ['the history cut at 786', cutAtResult],
  ])('%s: the governed copy is accepted', (_name, build) => {
    it.each([
      ['no budget', {}, true],
      ['a 200k window, 32k reply (claude-opus-4-5)', OPUS, true],
      ['a 32k window', { contextWindowTokens: 32_000, maxOutputTokens: 4096 }, false],
    ] as [string, GovernOptions, boolean][])('%s', (_label, options, roomForTheCall) => {
      const careless = deepFreeze(build());
      const snapshot = JSON.stringify(careless);
      const governed = enforceRoleAlternation(govern(careless, options).messages);
      const wire = toAnthropicMessages(governed);
      expect(anthropicWireViolations(wire.messages)).toEqual([]);
      expect(JSON.stringify(careless)).toBe(snapshot);

      // The turn being answered is sent, last.
      const lastTurn = wire.messages.at(-1)!;
      expect(lastTurn.role).toBe('user');
      expect(JSON.stringify(lastTurn.content)).toContain('"yo"');

      // Where the call at 785 is still in the request, it is answered right after, by the
      // backfilled "interrupted or lost" result, since its real one was lost.
      const k = wire.messages.findIndex((t) => t.content.some((b) => b.type === 'tool_use' && b.id === rejectedId));
      if (k >= 0) {
        const answer = wire.messages[k + 1].content.find((b) => b.type === 'tool_result' && b.tool_use_id === rejectedId);
        expect(answer).toBeDefined();
        if (build === lostResult) expect(JSON.stringify(answer)).toContain(JSON.stringify(BACKFILL_CONTENT).slice(1, -1));
      }
      // 785 is 49 messages before the turn: with room for it, the lost-result request keeps it.
      if (build === lostResult && roomForTheCall) expect(k).toBeGreaterThanOrEqual(0);
    });
  });
});
