/**
 * A Map bounded to `max` entries that forgets the least recently used one when full — never all at once: a
 * cache wiped when full makes every caller pay the miss together (100 workspaces round robin over a 64-entry
 * cache recompiled the policy on every call). `get` refreshes an entry; `peek` does not.
 *
 * @example
 * ```ts
 * import { LruMap } from '@toolgate/core';
 * const compiled = new LruMap<string, Evaluator>(256);
 * let ev = compiled.get(workspace);
 * if (!ev) compiled.set(workspace, (ev = compile(workspace)));
 * ```
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  // The most recent key: refreshing it again (the common case, one workspace or session in a row) is free.
  private newest: K | undefined = undefined;
  private hasNewest = false;

  private limit: number;

  constructor(
    max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    this.limit = checkMax(max);
  }

  get max(): number {
    return this.limit;
  }

  /** Changes the bound; shrinking evicts the least recently used entries beyond it. */
  resize(max: number): void {
    this.limit = checkMax(max);
    while (this.map.size > this.limit) this.evictOldest();
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    if (!this.hasNewest || this.newest !== key) {
      this.map.delete(key);
      this.map.set(key, value);
      this.newest = key;
      this.hasNewest = true;
    }
    return value;
  }

  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.limit) this.evictOldest();
    this.map.set(key, value);
    this.newest = key;
    this.hasNewest = true;
    return this;
  }

  delete(key: K): boolean {
    if (this.hasNewest && this.newest === key) {
      this.newest = undefined;
      this.hasNewest = false;
    }
    return this.map.delete(key);
  }

  /** Entries from the least to the most recently used. */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  /** Removes the least recently used entry; false when empty. */
  evictOldest(): boolean {
    const first = this.map.entries().next();
    if (first.done) return false;
    const [key, value] = first.value;
    this.delete(key);
    this.onEvict?.(key, value);
    return true;
  }
}

function checkMax(max: number): number {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`LruMap: max must be a positive integer, got ${String(max)}`);
  return max;
}
