/**
 * The editor's model is the source of truth while it is open: each change is
 * reported to the page, which hands the text back as the editor's `value`.
 * That echo can arrive after the user has typed on (a busy main thread renders
 * late); writing it back over the model would drop the newer keystrokes, and
 * the model's change event would then make the stale text the page's too.
 * This keeps the texts reported but not yet echoed, to tell an echo from a
 * real outside change (reload after save, restore).
 */
export class PendingEchoes {
  private texts: string[] = [];

  constructor(private readonly max = 50) {}

  /** The model reported `text` to the page. */
  reported(text: string): void {
    this.texts.push(text);
    // A page that never echoes must not make this grow without bound.
    if (this.texts.length > this.max) this.texts.shift();
  }

  /**
   * The page's value is now `value` and the model holds `modelText`: whether
   * the model must be replaced by `value`. Echoes (and anything older) are
   * consumed; an outside change clears them all.
   */
  shouldReplace(value: string, modelText: string): boolean {
    const echo = this.texts.lastIndexOf(value);
    if (echo >= 0) {
      this.texts.splice(0, echo + 1);
      return false;
    }
    if (modelText === value) return false;
    this.texts = [];
    return true;
  }

  clear(): void {
    this.texts = [];
  }
}
