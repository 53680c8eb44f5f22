/** Number of shards of a {@link ShardedMap} (a power of two). */
const SHARDS = 256;

/** A key's shard: a multiplicative hash of a number's two 32-bit halves, or of up to 32 of a string's units. */
function shardOf(key: number | string): number {
  if (typeof key === 'number') {
    const high = Math.floor(key / 0x1_0000_0000) | 0;
    return Math.imul((key | 0) ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1) >>> 24;
  }
  let hash = key.length;
  const step = 1 + (key.length >> 5);
  for (let i = 0; i < key.length; i += step) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return Math.imul(hash, 0x9e3779b1) >>> 24;
}

/**
 * A map from numbers or strings kept in {@link SHARDS} small maps instead of one large one. A single
 * map of a few hundred thousand entries rehashes everything at once when it grows (hundreds of
 * milliseconds of one synchronous step); the shards of this one each grow a small step at a time.
 * Same answers as a `Map`; no iteration order is promised.
 */
export class ShardedMap<K extends number | string, V> {
  private readonly shards: Array<Map<K, V>> = Array.from({ length: SHARDS }, () => new Map<K, V>());
  private count = 0;

  /** The value stored for `key`. */
  get(key: K): V | undefined {
    return this.shards[shardOf(key)]!.get(key);
  }

  /** Whether a value is stored for `key`. */
  has(key: K): boolean {
    return this.shards[shardOf(key)]!.has(key);
  }

  /** Stores `value` for `key`. */
  set(key: K, value: V): this {
    const shard = this.shards[shardOf(key)]!;
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  /** The number of keys stored. */
  get size(): number {
    return this.count;
  }
}
