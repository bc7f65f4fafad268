import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { contentWithMediaBreadcrumbs, imagePlaceholderText, recentMessageStartIndex } from './index.js';
import { loadCases } from '@nanobot-internal/test-support';
import { deepFreeze } from '../test/helpers.js';

const cases = loadCases(join('helpers', 'helpers.json'));

const runners: Record<string, (input: Record<string, any>) => unknown> = {
  'helpers.recent_message_start_index': (i) => recentMessageStartIndex(i.messages as Message[], i.max_messages, i.extend_to_user),
  'helpers.content_with_media_breadcrumbs': (i) => contentWithMediaBreadcrumbs(i as Message),
  'helpers.image_placeholder_text': (i) => imagePlaceholderText(i.path),
};
// No case of these families needs a documented deviation.
const DEVIATIONS: Record<string, string> = {};

const owned = cases.filter((c) => c.fn in runners);

describe('conformance: helpers owned by @nanobot/session', () => {
  it('has the expected number of cases (14 + 6 + 3)', () => {
    expect(owned.length).toBe(23);
  });
  it.each(owned.map((c) => [c.name, c] as const))('%s', (name, c) => {
    expect(c.raised).toBe(false);
    const input = deepFreeze(structuredClone(c.input));
    const got = runners[c.fn](input);
    if (name in DEVIATIONS) return;
    expect(got).toEqual(c.expected);
  });
});
