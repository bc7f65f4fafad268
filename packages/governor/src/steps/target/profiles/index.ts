// The declared targets: one profile per provider family (one file each), looked up by name.
import type { GovernTarget } from '../govern-target.js';
import type { TargetProfile } from '../target-profile.js';
import { ANTHROPIC_PROFILE } from './anthropic.js';
import { ANY_PROFILE } from './any.js';
import { OPENAI_PROFILE } from './openai.js';

/** Every target's profile. */
export const TARGET_PROFILES: Readonly<Record<GovernTarget, TargetProfile>> = Object.freeze({
  openai: OPENAI_PROFILE,
  anthropic: ANTHROPIC_PROFILE,
  any: ANY_PROFILE,
});

export { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';
