/**
 * The object editor's unsaved text, kept in the browser (localStorage) per
 * object, so a closed tab or a refused save loses nothing; storage that is
 * full or disabled loses only the draft.
 */
export interface Draft {
  text: string;
  base: number;
  at: number;
}

export function readDraft(key: string, current: string): Draft | null {
  try {
    const d = JSON.parse(window.localStorage.getItem(key) ?? 'null') as Draft | null;
    return d && typeof d.text === 'string' && d.text !== current ? d : null;
  } catch {
    return null;
  }
}

export function writeDraft(key: string, d: Draft) {
  try {
    window.localStorage.setItem(key, JSON.stringify(d));
  } catch {
    /* storage full or disabled: the beforeunload warning still applies */
  }
}

export function removeDraft(key: string) {
  try {
    window.localStorage.removeItem(key);
  } catch {
    /* ignore */
  }
}
