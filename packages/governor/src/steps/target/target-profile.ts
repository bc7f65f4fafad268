// A target's declared rules: what the legalisation and role steps do for one API, as data. One
// file per provider family under profiles/ and one line in its table (profiles/index.ts); the
// target steps and checkLegality read the profile, never the target's name.
import type { ReportedChangeReason } from '../../report/govern-report.js';
import type { GovernTarget } from './govern-target.js';
import type { ArtifactFamily } from './artifact-family.js';

/**
 * A model behind a target that wants each step of the current turn (after the last user
 * message) sent back with the reasoning it produced (OpenRouter's Gemini 3 and Claude with
 * reasoning on): a step made by another model has none, and its calls and results are sent as
 * plain text instead.
 */
export interface CurrentTurnReasoningRule {
  /** The models (the `model` option) the rule applies to. */
  readonly model: RegExp;
  /**
   * What a step must carry: `'call-signature'` a `reasoning.encrypted` detail whose `id` is the
   * step's first call (Gemini 3 through OpenRouter); `'signed-reasoning'` a signed
   * `reasoning.text` or an encrypted detail (Claude through OpenRouter).
   */
  readonly needs: 'call-signature' | 'signed-reasoning';
}

/**
 * One rule of a target as the steps apply it: its stable name and the report reasons of its
 * rewrites. What the provider says, where, and what the governor does live apart
 * (`TARGET_RULE_DOCS`, `documentedRules(target)`), so that a program running `govern` does not
 * carry the wording.
 */
export interface TargetRule {
  /** A short stable name (as `checkLegality` reports a broken rule). */
  id: string;
  /** The report reasons of the rewrites this rule causes (a report entry's `reason` names its rule through these). */
  reasons?: readonly ReportedChangeReason[];
}

/** A rule's documentation: the provider's wording, its source and what the governor does. */
export interface TargetRuleDoc {
  /** What the rule requires, in the provider's words (quoted or briefly paraphrased). */
  requires: string;
  /** Where the provider documents it (or where its error is reported). */
  source: string;
  /** What the governor does so that the rule holds. */
  does: string;
}

/** A rule with its documentation (what `documentedRules(target)` lists). */
export interface DocumentedTargetRule extends TargetRule, TargetRuleDoc {}

/**
 * How the target steps make a request legal for an API: its profile without the rule list
 * (what `StepContext.profile` holds; the steps never read the rules, so a program that only
 * governs does not carry them). Plain, frozen data.
 */
export interface TargetBehaviour {
  readonly target: GovernTarget;
  /** The roles the API accepts in the message list. */
  readonly roles: readonly string[];
  /**
   * Content present (OpenAI Chat Completions): `null` only on an assistant turn with tool calls,
   * no empty content list.
   */
  readonly contentRequired: boolean;
  /**
   * Strict content rules (Anthropic's): no blank text block (removed; blank text next to tool
   * calls becomes null), `developer` becomes `system`, an instruction after the conversation
   * started becomes a marked user note in its place.
   */
  readonly strictContent: boolean;
  /** Tool-call ids the API accepts (null: any string); others are renamed, call and results alike. */
  readonly toolCallIdPattern: RegExp | null;
  /**
   * How a rejected id is renamed: `'sanitize'` (each other character becomes `_`, kept unique)
   * or `'short-id'` (Mistral: the first 9 hex digits of the id's SHA-1, as the reference; kept unique).
   */
  readonly toolCallIdRename: 'sanitize' | 'short-id';
  /**
   * Role order: `'user-first'` (a user turn first after the instructions) or `'strict'`
   * (same-role turns merged, a user turn first and last).
   */
  readonly roleOrder: 'user-first' | 'strict';
  /** A user message never directly after a tool message: a marked assistant turn goes between. */
  readonly assistantBetweenToolAndUser: boolean;
  /** An assistant turn holding only unsigned reasoning (nothing the API takes back) is dropped. */
  readonly dropUnsignedReasoningTurns: boolean;
  /**
   * Every tool-calling assistant turn carries a string `reasoning_content` (DeepSeek thinking
   * mode): a turn made by another model, which has none, is sent with an empty one.
   */
  readonly reasoningContentOnToolCalls?: boolean;
  /**
   * Gemini 3: the first call of each step of the current turn (after the last user message)
   * must carry a thought signature; a call without one (made by another model) gets this
   * documented placeholder. Signatures that exist are never touched.
   */
  readonly currentTurnSignaturePlaceholder?: string;
  /**
   * The provider families whose artifacts (signed reasoning, thought signatures, provider-executed
   * tool blocks) this API takes back byte-exact; another family's are removed (reasoning) or sent
   * as text (server tool blocks). See `foreign-artifacts.ts`.
   */
  readonly keepsArtifactsOf: readonly ArtifactFamily[];
  /** Responses reasoning items must carry `summary` (an empty list when there is none). */
  readonly reasoningSummaryRequired?: boolean;
  /** Models that want the current turn's steps back with their own reasoning (else as text). */
  readonly currentTurnReasoning?: readonly CurrentTurnReasoningRule[];
  /**
   * Models that must not receive reasoning of earlier turns (`deepseek-reasoner`: "the CoT from
   * previous rounds is not concatenated into the context"): `reasoning_content` before the last
   * user message is removed; the current tool loop keeps it.
   */
  readonly earlierReasoningRemovedFor?: RegExp;
}

/** What an API requires of a request: its behaviour and the rules it declares. Plain, frozen data. */
export interface TargetProfile extends TargetBehaviour {
  /** The rules the profile enforces (their wording and sources: `documentedRules(target)`). */
  readonly rules: readonly TargetRule[];
}

/** The rule of `profile` whose rewrites carry `reason` (what a report entry's reason means for that target). */
export function ruleForReason(profile: TargetProfile, reason: ReportedChangeReason): TargetRule | undefined {
  return profile.rules.find((r) => r.reasons?.includes(reason));
}
