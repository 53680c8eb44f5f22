// The resource table of an app bundle module (resources.pb): aapt2's protocol buffer ResourceTable,
// read for what the manifest needs (the values of a resource per configuration) and a summary.
import { resolvedText } from './arsc.js';
import type { ResourceSummary, ResourceValue } from './arsc.js';
import { Proto } from './protobuf.js';
import { valueText } from './resValue.js';
import { itemValue } from './protoXml.js';

const FORMAT = 'protobuf resource table';

/** Entries indexed at most across the table; past it the table is cut (`truncated`). */
export const MAX_PROTO_ENTRIES = 500_000;

interface Entry {
  values: Proto[];
}

/** A bundle module's resources.pb, indexed by resource id. */
export class ProtoResourceTable {
  private readonly entries = new Map<number, Entry>();
  private readonly outline: ResourceSummary;
  /** True when the table held more entries than {@link MAX_PROTO_ENTRIES}. */
  readonly truncated: boolean = false;

  /** Indexes `buffer`; a field that runs past its message is `malformed`. */
  constructor(buffer: Buffer) {
    const table = new Proto(buffer, FORMAT);
    const locales = new Set<string>();
    let strings = 0;
    const packages: ResourceSummary['packages'] = [];
    for (const pkg of table.messages(2)) {
      const pkgId = pkg.message(1)?.number(1) ?? 0;
      const types: ResourceSummary['packages'][number]['types'] = [];
      for (const type of pkg.messages(3)) {
        const typeId = type.message(1)?.number(1) ?? 0;
        const configs = new Set<string>();
        const list = type.messages(3);
        for (const entry of list) {
          if (this.entries.size >= MAX_PROTO_ENTRIES) {
            this.truncated = true;
            break;
          }
          const id = ((pkgId & 0xff) << 24) | ((typeId & 0xff) << 16) | ((entry.message(1)?.number(1) ?? 0) & 0xffff);
          const values = entry.messages(6);
          for (const v of values) {
            const locale = v.message(1)?.string(3) ?? '';
            locales.add(locale);
            configs.add(v.message(1)?.bytes.toString('hex') ?? '');
            if (v.message(2)?.message(4)?.has(2)) strings++;
          }
          this.entries.set(id >>> 0, { values });
        }
        types.push({ name: type.string(2), entries: list.length, configurations: configs.size });
      }
      packages.push({ id: pkgId, name: pkg.string(2), types });
    }
    locales.delete('');
    this.outline = { packages, locales: [...locales].sort(), strings };
  }

  /** The values of resource `id` in every configuration that defines it. */
  resolve(id: number): ResourceValue[] {
    const entry = this.entries.get(id >>> 0);
    if (entry === undefined) return [];
    return entry.values.map((v) => {
      const locale = v.message(1)?.string(3) ?? '';
      const item = v.message(2)?.message(4) ?? null;
      if (item === null) return { locale, text: '(complex)', value: null };
      const { value, text } = itemValue(item);
      return { locale, text: text ?? valueText(value), value };
    });
  }

  /** The text of `id` in its default configuration (else its first), following references; null when undefined. */
  text(id: number, depth = 8): string | null {
    return resolvedText(this, id, depth);
  }

  /** Packages, types with their entry and configuration counts, locales, and the number of string values. */
  summary(): ResourceSummary {
    return this.outline;
  }
}
