/**
 * Output of a background session since its last poll, in bounded memory: the first and the most
 * recent characters within `maxChars` (half each once it overflows), everything counted, as the
 * reference's `_BoundedOutputBuffer`. `drain` hands the text over and starts afresh.
 */
export class DrainableCapture {
  #head = '';
  #tail = '';
  #total = 0;
  #truncated = false;

  constructor(readonly maxChars: number) {}

  /** Whether anything arrived since the last drain. */
  get hasOutput(): boolean {
    return this.#total > 0;
  }

  /** The text kept so far (for searching; the dropped middle is not in it). */
  get retained(): string {
    return this.#head + this.#tail;
  }

  append(text: string): void {
    if (!text) return;
    this.#total += text.length;
    if (!this.#truncated) {
      const combined = this.#head + text;
      if (combined.length <= this.maxChars) {
        this.#head = combined;
        return;
      }
      const headChars = Math.floor(this.maxChars / 2);
      this.#head = combined.slice(0, headChars);
      this.#tail = combined.slice(combined.length - (this.maxChars - headChars));
      this.#truncated = true;
      return;
    }
    const tailChars = this.maxChars - this.#head.length;
    this.#tail = (this.#tail + text).slice(-tailChars);
  }

  /** The kept text and how many characters were dropped from its middle; empties the capture. */
  drain(): { text: string; truncated: number } {
    const text = this.#head + this.#tail;
    const truncated = this.#total - text.length;
    this.#head = '';
    this.#tail = '';
    this.#total = 0;
    this.#truncated = false;
    return { text, truncated };
  }
}
