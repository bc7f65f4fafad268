import type { Message } from '@nanobot/schema';
import { checkLegality } from '@nanobot/governor';

/** The governor's structural legality check, as short strings (empty when legal). */
export function legalityProblems(messages: readonly Message[]): string[] {
  return checkLegality(messages).map((v) => `${v.rule}@${v.index}: ${v.message}`);
}
