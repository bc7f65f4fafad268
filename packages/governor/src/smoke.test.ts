import { expect, it } from 'vitest';
import { NanobotError } from '@nanobot/schema';

it('resolves sibling packages from source', () => {
  expect(new NanobotError('X', 'y').code).toBe('X');
});
