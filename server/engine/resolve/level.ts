/**
 * One level of a resolution (a service context reached under one key
 * prefix): the instance keys and names of its components, computed once,
 * the renderings and label sets claims share there (interned, so that equal
 * values are one object), and its memoised walks (PolicyIndex.memoLookup).
 */
import { deployName, instanceId } from '../lang';
import type { MemoResult } from './claim-types';

export interface MemoEntry {
  /** Whether walks under this key read the user / the claim (then results are kept per user / claim). */
  user: boolean;
  claim: boolean;
  results: Map<string, MemoResult>;
}

export function memoSubKey(e: MemoEntry, user: string, claim: string): string {
  return `${e.user ? user : ''}\u0000${e.claim ? claim : ''}`;
}

export interface InstanceNames {
  deployName: string;
  instanceId: string;
}

function namesOf(key: string): InstanceNames {
  return { deployName: deployName(key), instanceId: instanceId(key) };
}

export class Level {
  readonly rootKey: string;
  readonly rootNames: InstanceNames;
  private readonly components = new Map<string, { key: string; names: InstanceNames }>();
  /**
   * The last rendering seen per component (code, discovery) and the last
   * label set. Claims sharing an instance render equal values; reusing the
   * first object lets the merge compare by identity and frees the copy at
   * once (20,000 claims otherwise keep 20,000 copies alive).
   */
  private readonly codes = new Map<string, unknown>();
  private readonly discoveries = new Map<string, unknown>();
  private readonly labels: Readonly<Record<string, string>>[] = [];
  /** Memoised walks of this level (see PolicyIndex.memoLookup). */
  readonly walks = new Map<object, Map<string, MemoEntry>>();

  constructor(private readonly prefix: string) {
    this.rootKey = prefix + 'root';
    this.rootNames = namesOf(this.rootKey);
  }

  internCode<T>(component: string, value: T, equal: (a: T, b: T) => boolean): T {
    return internIn(this.codes, component, value, equal);
  }

  internDiscovery<T>(component: string, value: T, equal: (a: T, b: T) => boolean): T {
    return internIn(this.discoveries, component, value, equal);
  }

  /**
   * An equal label set seen at this level before, or `labels` itself. A few
   * recent sets are kept (claims of different teams alternate); identity of
   * the result then stands for its content in memo keys.
   */
  internLabels(labels: Record<string, string>): Record<string, string> {
    const recent = this.labels;
    for (let i = 0; i < recent.length; i++) {
      const prev = recent[i]!;
      if (sameLabels(prev, labels)) {
        if (i > 0) {
          recent.splice(i, 1);
          recent.unshift(prev);
        }
        return prev as Record<string, string>;
      }
    }
    recent.unshift(labels);
    if (recent.length > RECENT_LABEL_SETS) recent.pop();
    return labels;
  }

  component(name: string): { key: string; names: InstanceNames } {
    let c = this.components.get(name);
    if (!c) {
      const key = this.prefix + name;
      c = { key, names: namesOf(key) };
      this.components.set(name, c);
    }
    return c;
  }
}

const RECENT_LABEL_SETS = 8;

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (let i = 0; i < ak.length; i++) if (a[ak[i]!] !== b[ak[i]!]) return false;
  return true;
}

function internIn<T>(m: Map<string, unknown>, slot: string, value: T, equal: (a: T, b: T) => boolean): T {
  const prev = m.get(slot) as T | undefined;
  if (prev !== undefined && (prev === value || equal(prev, value))) return prev;
  m.set(slot, value);
  return value;
}
