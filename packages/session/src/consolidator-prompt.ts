/**
 * The instruction sent as the last user message when old turns are archived (our wording of
 * the reference's contract: summarise only the last `archiveCount` messages as `- [mark] fact`
 * lines meeting the SNIP criteria, or reply exactly `(nothing)`).
 */
export function consolidatorArchivePrompt(archiveCount: number): string {
  return `Archive request: the conversation is being shortened. Summarise ONLY the final ${archiveCount} messages above; everything earlier is context you must not repeat.

Write one line per fact, formatted \`- [mark] fact\`, and only for facts that pass all four SNIP tests:
- Signal: it matters to the user or the work, not chit-chat;
- Novel: it is not already in Recent History or the memory files;
- Important: forgetting it would make a later answer worse;
- Persistent: it will still be true or useful after this conversation.

Marks:
- [permanent] stable facts about the user, their preferences or their projects;
- [durable] decisions, conventions and results likely to hold for weeks;
- [ephemeral] short-lived state worth knowing for the next few days;
- [correction] something that replaces or corrects an earlier fact (name what it corrects);
- [skip] only if you must mention something that should not be kept.

Put corrections and permanent facts first. Keep each line short and self-contained. Do not call tools.
If nothing in those messages passes the tests, reply with exactly: (nothing)`;
}
