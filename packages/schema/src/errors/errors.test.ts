import { describe, expect, it } from 'vitest';
import { NanobotError, ValidationError } from './errors.js';

describe('NanobotError', () => {
  it('carries a stable code and the subclass name', () => {
    const err = new ValidationError('bad field', ['tool_calls', 0]);
    expect(err).toBeInstanceOf(NanobotError);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.name).toBe('ValidationError');
    expect(err.path).toEqual(['tool_calls', 0]);
  });
});
