/** `1 line`, `2 lines`, `0 messages`: a count with its noun in the right number. Pure. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}
