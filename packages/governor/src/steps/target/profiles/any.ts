import type { TargetProfile } from '../target-profile.js';
import { ANTHROPIC_PROFILE } from './anthropic.js';
import { OPENAI_PROFILE } from './openai.js';

/** Legal for OpenAI Chat Completions and Anthropic Messages at once (the default target). */
export const ANY_PROFILE: TargetProfile = Object.freeze({
  target: 'any',
  rules: Object.freeze([...OPENAI_PROFILE.rules, ...ANTHROPIC_PROFILE.rules]),
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_PROFILE.toolCallIdPattern,
  roleOrder: 'strict',
} as const);
