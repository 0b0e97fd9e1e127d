/**
 * A generation's state crossing from the resolver thread, as what changed.
 *
 * Consecutive generations differ by a claim or two, yet each state crossed
 * whole, as JSON text the request thread parsed (about 11 ms for a 1.1 MB
 * state of 500 services, in one piece, hundreds of times a minute under
 * writes, and all of it garbage a generation later). Now the thread that
 * resolved it also says, item by item, which claims and instances are the
 * same as in the state it sent before: the request thread builds the new
 * state from the previous one's objects (shared: states are never changed
 * after they arrive) and parses only the items that changed.
 *
 * The text still crosses whole, as the form the state is stored in (copying
 * a string between threads is a copy, not a parse). The request thread falls
 * back to parsing it whenever it does not hold the state the change is from.
 */

import { deepFreeze } from '../engine/values';

/** The top-level arrays sent item by item; anything else crosses as JSON. */
const ITEMIZED = ['claims', 'instances'] as const;

/** What the resolver thread remembers of the state it sent last. */
export interface SentState {
  /** Per itemized array: each item's JSON, and its index by that JSON. */
  items: Record<string, { texts: string[]; byText: Map<string, number> }>;
  /** Each item's JSON by the item itself, kept from state to state (see `textOf`). */
  texts: WeakMap<object, string>;
}

/**
 * Whether items are frozen when first written (tests): an engine that changed
 * an item it had already handed out would then fail loudly where the suite
 * runs, instead of crossing a stale text.
 */
const FREEZE_ITEMS = process.env.NODE_ENV === 'test';

/**
 * An item's JSON, written once per item object. The engine hands an
 * unchanged claim or instance on as the same object from one generation to
 * the next and never changes an item after handing it out (a changed one is
 * a new object): writing all of them again for every generation — 2,700
 * items, 5 MB, in the medium benchmark policy — took 40–60 ms of the
 * resolver thread where the engine's update took 1–5 ms, and the generations
 * waiting behind it (and the reads waiting for those) waited for that.
 */
function textOf(item: unknown, texts: WeakMap<object, string>): string {
  if (item === null || typeof item !== 'object') return (JSON.stringify(item) as string | undefined) ?? 'null';
  let text = texts.get(item);
  if (text === undefined) {
    text = (JSON.stringify(item) as string | undefined) ?? 'null';
    if (FREEZE_ITEMS) deepFreeze(item);
    texts.set(item, text);
  }
  return text;
}

/** What crosses beside the text: how to build the state from the previous one. */
export interface StateChange {
  /** The state's own keys, in order. */
  keys: string[];
  /** The values of keys not itemized, as JSON. */
  rest: string;
  /** Per itemized key: for each item, the index of the equal item in the previous state, or -1 for one in `fresh`. */
  reuse: Record<string, number[]>;
  /** Per itemized key: the items not in the previous state, in order, as a JSON array. */
  fresh: Record<string, string>;
}

function isItemizable(state: unknown): state is Record<string, unknown> {
  if (state === null || typeof state !== 'object' || Array.isArray(state) || Object.getPrototypeOf(state) !== Object.prototype) return false;
  // A key that is not plain data when built again (assigning __proto__ sets the prototype): such a state crosses as text only.
  if (Object.hasOwn(state, '__proto__')) return false;
  return ITEMIZED.every((k) => Array.isArray((state as Record<string, unknown>)[k]));
}

/**
 * The state's JSON (equal to `JSON.stringify(state)`), what to remember of
 * it for the next one, and — when `previous` is given — the change from it.
 */
export function encodeState(state: unknown, previous: SentState | undefined): { json: string; sent?: SentState; change?: StateChange } {
  if (!isItemizable(state)) return { json: JSON.stringify(state) };
  const items: SentState['items'] = {};
  const known = previous?.texts ?? new WeakMap<object, string>();
  const reuse: StateChange['reuse'] = {};
  const fresh: StateChange['fresh'] = {};
  const parts: string[] = [];
  const restValues: Record<string, unknown> = {};
  const keys: string[] = [];
  for (const [key, value] of Object.entries(state)) {
    if (!(ITEMIZED as readonly string[]).includes(key)) {
      // As JSON.stringify writes it: a value with no JSON (undefined, a function, a toJSON giving undefined) leaves its key out.
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) continue;
      keys.push(key);
      restValues[key] = value;
      parts.push(`${JSON.stringify(key)}:${text}`);
      continue;
    }
    keys.push(key);
    // Array.from visits holes (as undefined), which JSON.stringify writes as null; map would skip them.
    const texts = Array.from(value as unknown[], (item) => textOf(item, known));
    const byText = new Map<string, number>();
    texts.forEach((t, i) => byText.has(t) || byText.set(t, i));
    items[key] = { texts, byText };
    parts.push(`${JSON.stringify(key)}:[${texts.join(',')}]`);
    const before = previous?.items[key];
    if (before) {
      const newOnes: string[] = [];
      reuse[key] = texts.map((t) => {
        const at = before.byText.get(t);
        if (at !== undefined) return at;
        newOnes.push(t);
        return -1;
      });
      fresh[key] = `[${newOnes.join(',')}]`;
    }
  }
  const json = `{${parts.join(',')}}`;
  const change = previous && ITEMIZED.every((k) => reuse[k]) ? { keys, rest: JSON.stringify(restValues), reuse, fresh } : undefined;
  return { json, sent: { items, texts: known }, ...(change ? { change } : {}) };
}

/**
 * The state `change` describes, built on `previous` (the state the resolver
 * thread sent before it); undefined when `previous` does not fit it (the
 * caller parses the text instead).
 */
export function decodeState(change: StateChange, previous: unknown): Record<string, unknown> | undefined {
  if (!isItemizable(previous)) return undefined;
  const rest = JSON.parse(change.rest) as Record<string, unknown>;
  const built: Record<string, unknown> = {};
  for (const key of change.keys) {
    if (!(ITEMIZED as readonly string[]).includes(key)) {
      built[key] = rest[key];
      continue;
    }
    const old = previous[key] as unknown[];
    const added = JSON.parse(change.fresh[key] ?? '[]') as unknown[];
    const reuse = change.reuse[key] ?? [];
    const out = new Array<unknown>(reuse.length);
    let next = 0;
    for (let i = 0; i < reuse.length; i++) {
      const at = reuse[i]!;
      if (at >= 0) {
        if (at >= old.length) return undefined;
        out[i] = old[at];
      } else out[i] = added[next++];
    }
    if (next !== added.length) return undefined;
    built[key] = out;
  }
  return built;
}
