/**
 * The reference's head+tail cut: text longer than `budget` keeps its first and last
 * `floor(budget/2)` characters around `\n\n... (<n> chars truncated) ...\n\n`. `extraOmitted`
 * adds characters already dropped upstream (bounded capture) to the count. Pure.
 */
export function truncateMiddle(text: string, budget: number, extraOmitted = 0): string {
  const total = text.length + extraOmitted;
  if (total <= budget) return text;
  const half = Math.floor(budget / 2);
  const omitted = (total - budget).toLocaleString('en-US');
  return `${text.slice(0, half)}\n\n... (${omitted} chars truncated) ...\n\n${text.slice(text.length - half)}`;
}
