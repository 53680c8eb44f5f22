// The call sites (`invoke-custom`, DEX 038+) and method handles of a DEX file, found through its
// map_list: each call site's encoded array of link arguments starts with its bootstrap method handle,
// the method name and the method type; further method handles among the arguments (a lambda's body,
// for LambdaMetafactory) are what the site ends up calling.
import { malformed } from '../bytes.js';
import type { Bytes } from '../bytes.js';
import type { DexFile } from './file.js';

const TYPE_CALL_SITE_ID = 0x0007;
const TYPE_METHOD_HANDLE = 0x0008;
/** Method handle types 0–3 access a field; 4–8 invoke a method. */
export const HANDLE_TYPES = [
  'static-put',
  'static-get',
  'instance-put',
  'instance-get',
  'invoke-static',
  'invoke-instance',
  'invoke-constructor',
  'invoke-direct',
  'invoke-interface',
];

/** A method handle: a field access or a method invocation, by its id. */
export interface DexMethodHandle {
  type: string;
  kind: 'field' | 'method';
  /** field_ids or method_ids index. */
  index: number;
}

/** A call site: its bootstrap method handle and every method handle among its link arguments. */
export interface DexCallSite {
  bootstrap: DexMethodHandle | null;
  /** Method handles among the link arguments after the first three (the bootstrap's own). */
  handles: DexMethodHandle[];
}

const VALUE_METHOD_HANDLE = 0x16;
const VALUE_ARRAY = 0x1c;
const VALUE_ANNOTATION = 0x1d;

/** The `call_site_ids` and `method_handles` of `dex`; every read is bounds-checked (`malformed`). */
export class DexCallSites {
  private readonly sites: { size: number; off: number } = { size: 0, off: 0 };
  private readonly handlesAt: { size: number; off: number } = { size: 0, off: 0 };
  private readonly b: Bytes;

  constructor(dex: DexFile) {
    const b = (this.b = dex.bytes);
    const mapOff = b.u32(dex.headerOffset + 52, 'map_off');
    if (mapOff === 0) return;
    const count = b.u32(mapOff, 'map_list');
    b.need(mapOff + 4, count * 12, 'map_list');
    for (let i = 0; i < count; i++) {
      const at = mapOff + 4 + i * 12;
      const type = b.u16(at);
      const entry = { size: b.u32(at + 4), off: b.u32(at + 8) };
      if (type === TYPE_CALL_SITE_ID) b.need(entry.off, entry.size * 4, 'call_site_ids');
      if (type === TYPE_METHOD_HANDLE) b.need(entry.off, entry.size * 8, 'method_handles');
      if (type === TYPE_CALL_SITE_ID) this.sites = entry;
      if (type === TYPE_METHOD_HANDLE) this.handlesAt = entry;
    }
  }

  /** Number of call sites. */
  get size(): number {
    return this.sites.size;
  }

  /** Method handle `index`, or null when out of range. */
  handle(index: number): DexMethodHandle | null {
    if (index >= this.handlesAt.size) return null;
    const at = this.handlesAt.off + index * 8;
    const type = this.b.u16(at, 'method_handle');
    return {
      type: HANDLE_TYPES[type] ?? `type-${type}`,
      kind: type <= 3 ? 'field' : 'method',
      index: this.b.u16(at + 4),
    };
  }

  /** Call site `index`, or null when out of range. */
  callSite(index: number): DexCallSite | null {
    if (index >= this.sites.size) return null;
    const found: [number, number][] = [];
    const [count, start] = this.b.uleb128(this.b.u32(this.sites.off + index * 4, 'call_site_id'), 'call site');
    let at = start;
    for (let i = 0; i < count; i++) at = this.value(at, found, i, 0);
    const bootstrap = found[0]?.[0] === 0 ? this.handle(found[0][1]) : null;
    return {
      bootstrap,
      handles: found
        .filter(([position]) => position >= 3)
        .map(([, h]) => this.handle(h))
        .filter((h): h is DexMethodHandle => h !== null),
    };
  }

  /** Skips one encoded_value at `at`, noting a method handle index (with its position) in `found`. */
  private value(at: number, found: [number, number][], position: number, depth: number): number {
    if (depth > 8) throw malformed('DEX', 'encoded values nested too deeply');
    const head = this.b.u8(at, 'encoded_value');
    const type = head & 0x1f;
    const arg = head >> 5;
    at += 1;
    if (type === VALUE_ARRAY) {
      const [n, next] = this.b.uleb128(at);
      at = next;
      for (let i = 0; i < n; i++) at = this.value(at, [], i, depth + 1);
      return at;
    }
    if (type === VALUE_ANNOTATION) {
      let [n, next] = this.b.uleb128(this.b.uleb128(at)[1]);
      for (; n > 0; n--) next = this.value(this.b.uleb128(next)[1], [], 1, depth + 1);
      return next;
    }
    if (type === 0x1e || type === 0x1f) return at;
    this.b.need(at, arg + 1, 'encoded_value');
    if (type === VALUE_METHOD_HANDLE && arg < 4) found.push([position, this.b.buffer.readUIntLE(at, arg + 1)]);
    return at + arg + 1;
  }
}
