/**
 * A memo of a pure function of a text (a raw manifest's parse), kept
 * across calls: every revision plans the whole before and after states, and
 * almost all their manifests are the texts the previous revision already
 * read. Bounded by the characters of the texts it holds; the oldest entry
 * goes first.
 */
export class TextMemo<T> {
  private readonly entries = new Map<string, T>();
  private chars = 0;

  constructor(
    private readonly compute: (text: string) => T,
    private readonly maxChars: number,
  ) {}

  get(text: string): T {
    const hit = this.entries.get(text);
    if (hit !== undefined) return hit;
    const value = this.compute(text);
    if (text.length > this.maxChars) return value;
    this.entries.set(text, value);
    this.chars += text.length;
    for (const [old] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(old);
      this.chars -= old.length;
    }
    return value;
  }
}
