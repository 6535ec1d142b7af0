/**
 * The one way state is kept in a replica's memory to save work (ADR 0025): a
 * get-or-compute memo with a name and a declared policy. Every memo is listed in
 * docs/memory.md (what, key, bound, invalidation, why); a test fails when a named memo is
 * missing from it. Caches of shared data that another replica may change are not memos:
 * they are NotifiedCache (shared/persistence), kept coherent by NOTIFY.
 *
 * Policies:
 * - `byObject`: one value per key object, kept as long as the object lives (a WeakMap).
 *   For values derived from immutable objects, such as a catalog snapshot's novels: the
 *   snapshot replaces its objects when the catalog changes, so a value is never stale.
 * - `bounded`, `'lru'`: at most `max` keys, the least recently used dropped first. For
 *   keys a caller chooses (a page query), so that asking for new ones cannot grow memory.
 * - `bounded`, `'clear'`: at most `max` keys, all dropped when full. For values that are a
 *   pure function of the key and cheap to recompute (calendar instants), where the common
 *   keys come back at once.
 * - `perInstant`: values for one instant only (a clock second), dropped when it passes.
 */
export interface Memo<K, V, A extends unknown[] = []> {
  readonly name: string;
  /** The value for `key`; `args`, used only to compute it, must be determined by the key. */
  get(key: K, ...args: A): V;
}

export function byObject<K extends object, V, A extends unknown[] = []>(name: string, compute: (key: K, ...args: A) => V): Memo<K, V, A> {
  const values = new WeakMap<K, V>();
  return {
    name,
    get(key, ...args) {
      let value = values.get(key);
      if (value === undefined) values.set(key, (value = compute(key, ...args)));
      return value;
    },
  };
}

export function bounded<K, V, A extends unknown[] = []>(name: string, policy: 'lru' | 'clear', max: number, compute: (key: K, ...args: A) => V): Memo<K, V, A> {
  const values = new Map<K, V>();
  return {
    name,
    get(key, ...args) {
      let value = values.get(key);
      if (value !== undefined) {
        if (policy === 'lru') {
          // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
          values.delete(key);
          values.set(key, value);
        }
        return value;
      }
      if (values.size >= max) {
        if (policy === 'clear') values.clear();
        else values.delete(values.keys().next().value as K);
      }
      values.set(key, (value = compute(key, ...args)));
      return value;
    },
  };
}

/** Values for the instant `instantOf(key)` names (e.g. a whole second); a new instant drops the previous one's. */
export function perInstant<K, V>(name: string, compute: (key: K, instant: number) => V): { readonly name: string; get(key: K, instant: number): V } {
  let current = { instant: Number.NaN, values: new Map<K, V>() };
  return {
    name,
    get(key, instant) {
      if (current.instant !== instant) current = { instant, values: new Map() };
      let value = current.values.get(key);
      if (value === undefined) current.values.set(key, (value = compute(key, instant)));
      return value;
    },
  };
}
