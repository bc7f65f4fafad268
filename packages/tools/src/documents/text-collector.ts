/**
 * Builds bounded parser output: parts are added with a separator until `limit` characters,
 * the last one cut to fit; `render()` then says where it was truncated (the reference's text).
 */
export class TextCollector {
  private readonly parts: string[] = [];
  private length = 0;
  truncated = false;

  constructor(readonly limit: number) {}

  /** Adds `text` (after `separator` unless first); false once the limit is reached. */
  add(text: string, separator = ''): boolean {
    if (!text) return true;
    const chunk = (this.parts.length > 0 ? separator : '') + text;
    const remaining = this.limit - this.length;
    if (chunk.length > remaining) {
      if (remaining > 0) {
        this.parts.push(chunk.slice(0, remaining));
        this.length += remaining;
      }
      this.truncated = true;
      return false;
    }
    this.parts.push(chunk);
    this.length += chunk.length;
    return true;
  }

  get full(): boolean {
    return this.truncated;
  }

  render(): string {
    const text = this.parts.join('');
    return this.truncated ? `${text}... (truncated at ${this.limit} chars)` : text;
  }
}
