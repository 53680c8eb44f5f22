// The annotations of a class (annotations_directory_item): on the class, its fields, its methods and
// its methods' parameters, each with its visibility and its elements' values decoded.
import { ValueReader } from './encodedValue.js';
import type { DexValue } from './encodedValue.js';
import type { DexFile } from './file.js';

/** Annotations read at most per set, and annotated members at most per class. */
export const MAX_ANNOTATIONS = 4096;

/** One annotation_item. */
export interface DexAnnotation {
  type: string;
  /** `build`, `runtime` or `system` (`visibility-N` for another byte). */
  visibility: string;
  elements: { name: string; value: DexValue }[];
}

/** A class's annotations, members by field_ids / method_ids index. */
export interface DexAnnotations {
  classAnnotations: DexAnnotation[];
  fields: Map<number, DexAnnotation[]>;
  methods: Map<number, DexAnnotation[]>;
  /** Per method, one annotation list per parameter. */
  parameters: Map<number, DexAnnotation[][]>;
}

const VISIBILITY = ['build', 'runtime', 'system'];

function counted(dex: DexFile, off: number, item: number, what: string): number {
  const size = Math.min(dex.bytes.u32(off, what), MAX_ANNOTATIONS);
  dex.bytes.need(off + 4, size * item, what);
  return size;
}

/** The annotation_set_item at `off` (none for 0). */
export function annotationSet(dex: DexFile, off: number): DexAnnotation[] {
  if (off === 0) return [];
  const out: DexAnnotation[] = [];
  const size = counted(dex, off, 4, 'annotation set');
  for (let i = 0; i < size; i++) {
    const item = dex.bytes.u32(off + 4 + i * 4);
    const visibility = dex.bytes.u8(item, 'annotation item');
    const { type, elements } = new ValueReader(dex, item + 1).annotation();
    out.push({ type, visibility: VISIBILITY[visibility] ?? `visibility-${visibility}`, elements });
  }
  return out;
}

/**
 * Reads the annotations_directory_item at `off` (nothing for 0); any offset or count past the file is
 * `malformed`.
 */
export function readAnnotations(dex: DexFile, off: number): DexAnnotations {
  const result: DexAnnotations = { classAnnotations: [], fields: new Map(), methods: new Map(), parameters: new Map() };
  if (off === 0) return result;
  const b = dex.bytes;
  b.need(off, 16, 'annotations directory');
  result.classAnnotations = annotationSet(dex, b.u32(off));
  const sizes = [b.u32(off + 4), b.u32(off + 8), b.u32(off + 12)].map((n) => Math.min(n, MAX_ANNOTATIONS));
  let at = off + 16;
  b.need(at, (sizes[0]! + sizes[1]! + sizes[2]!) * 8, 'annotations directory');
  for (let i = 0; i < sizes[0]!; i++, at += 8) result.fields.set(b.u32(at), annotationSet(dex, b.u32(at + 4)));
  for (let i = 0; i < sizes[1]!; i++, at += 8) result.methods.set(b.u32(at), annotationSet(dex, b.u32(at + 4)));
  for (let i = 0; i < sizes[2]!; i++, at += 8) {
    const list = b.u32(at + 4);
    if (list === 0) continue;
    const count = counted(dex, list, 4, 'annotation set ref list');
    const sets: DexAnnotation[][] = [];
    for (let k = 0; k < count; k++) sets.push(annotationSet(dex, b.u32(list + 4 + k * 4)));
    result.parameters.set(b.u32(at), sets);
  }
  return result;
}
