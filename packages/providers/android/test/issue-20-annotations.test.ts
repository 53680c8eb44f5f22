// Annotation values of classes, fields, methods and parameters, decoded from every class of a real DEX
// (androguard's TestsAnnotation sample) and checked line by line against `dexdump -a`, whose text
// each decoded annotation is rendered to here; and through inspect_android_class for one class.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DexFile, inspectAndroidClassTool } from '../src/index.js';
import { readAnnotations } from '../src/format/dex/annotations.js';
import type { DexAnnotation } from '../src/format/dex/annotations.js';
import type { DexValue } from '../src/format/dex/encodedValue.js';
import { SAMPLES, output, runTool } from './support.js';

const DEX = `${SAMPLES}/android/TestsAnnotation/classes.dex`;

/** dexdump -a's annotation blocks: `class N`, `field I`, `method I`, `param I #k` → their lines. */
function dexdumpBlocks(): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  let classIndex = -1;
  let key: string | null = null;
  let params: string | null = null;
  for (const line of output('dexdump', ['-a', DEX]).split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^Class #(\d+) annotations:$/.exec(line)) !== null) {
      classIndex = Number(m[1]);
      key = null;
    } else if (line === 'Annotations on class') key = `class ${classIndex}`;
    else if ((m = /^Annotations on (field|method) #(\d+) '.*'( parameters)?$/.exec(line)) !== null) {
      params = m[3] === undefined ? null : `param ${m[2]}`;
      key = params === null ? `${m[1]} ${m[2]}` : null;
    } else if (params !== null && (m = /^#(\d+)$/.exec(line)) !== null) key = `${params} #${m[1]}`;
    else if (key !== null && line.startsWith('  ') && !line.startsWith('   ')) {
      if (line.trim() !== 'empty-annotation-set') blocks.set(key, [...(blocks.get(key) ?? []), line.trim()]);
      else blocks.set(key, blocks.get(key) ?? []);
    } else {
      key = null;
      if (!line.startsWith('#')) params = null;
    }
  }
  return blocks;
}

/** C's `%g`: six significant digits, trailing zeros dropped, exponent of at least two digits. */
function g(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = x.toExponential(5).split('e') as [string, string];
    const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const n = Number(e);
    return `${trimmed}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, 5 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** A decoded value as dexdump writes it: members by name, arrays as `{ a b }`, annotations inline. */
function dexdumpValue(v: DexValue): string {
  switch (v.type) {
    case 'string':
      return `"${v.value}"`;
    case 'float':
    case 'double':
      return g(typeof v.value === 'string' ? Number(v.value) : v.value);
    case 'field':
    case 'enum':
      return /->(.*):/.exec(v.value)![1]!;
    case 'method':
      return /->(.*)\(/.exec(v.value)![1]!;
    case 'array':
      return `{ ${v.value.map((e) => `${dexdumpValue(e)} `).join('')}}`;
    case 'annotation':
      return annotationText(v.value);
    default:
      return String(v.value);
  }
}

function annotationText(a: { type: string; elements: { name: string; value: DexValue }[] }): string {
  return [a.type, ...a.elements.map((e) => `${e.name}=${dexdumpValue(e.value)}`)].join(' ');
}

const line = (a: DexAnnotation) => `VISIBILITY_${a.visibility.toUpperCase()} ${annotationText(a)}`;

describe('annotation values', () => {
  it('decodes every annotation of every class as dexdump -a prints it', () => {
    const expected = dexdumpBlocks();
    const dex = new DexFile(readFileSync(DEX));
    const got = new Map<string, string[]>();
    const kinds = new Set<string>();
    const note = (v: DexValue): void => {
      kinds.add(v.type);
      if (v.type === 'array') v.value.forEach(note);
      if (v.type === 'annotation') v.value.elements.forEach((e) => note(e.value));
    };
    for (let i = 0; i < dex.classDefs.size; i++) {
      const notes = readAnnotations(dex, dex.classDef(i).annotationsOff);
      const put = (key: string, list: DexAnnotation[]) => {
        got.set(key, list.map(line));
        list.forEach((a) => a.elements.forEach((e) => note(e.value)));
      };
      if (notes.classAnnotations.length > 0) put(`class ${i}`, notes.classAnnotations);
      for (const [index, list] of notes.fields) put(`field ${index}`, list);
      for (const [index, list] of notes.methods) put(`method ${index}`, list);
      for (const [index, sets] of notes.parameters) sets.forEach((list, k) => put(`param ${index} #${k}`, list));
    }
    expect(got.size).toBeGreaterThan(4000);
    const differ = [...expected].filter(([key, lines]) => JSON.stringify(got.get(key)) !== JSON.stringify(lines));
    expect(differ.slice(0, 5).map(([key, lines]) => [key, lines, got.get(key)])).toEqual([]);
    expect([...got.keys()].filter((k) => !expected.has(k))).toEqual([]);
    // The sample's values span these kinds (dexdump agreeing on each).
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'annotation',
        'array',
        'boolean',
        'double',
        'enum',
        'int',
        'long',
        'method',
        'null',
        'string',
        'type',
      ]),
    );
  });

  it('reports an infinite default (FloatRange) by name, which JSON has no number for', async () => {
    // dexdump -a: AnnotationDefault; value=Landroid/support/annotation/FloatRange; from=-inf … to=inf. The
    // record could not be sealed before: -Infinity is no JSON number, and the call failed.
    const { normalized_result } = await runTool<{
      annotations: Array<{ type: string; elements: { name: string; value: DexValue }[] }>;
    }>(inspectAndroidClassTool, { path: DEX, class: 'android.support.annotation.FloatRange' });
    const defaults = normalized_result.annotations.find((a) => a.type === 'Ldalvik/annotation/AnnotationDefault;')!;
    const value = defaults.elements[0]!.value as {
      type: 'annotation';
      value: { elements: { name: string; value: DexValue }[] };
    };
    expect(value.value.elements.filter((e) => e.name === 'from' || e.name === 'to')).toEqual([
      { name: 'from', value: { type: 'double', value: '-Infinity' } },
      { name: 'to', value: { type: 'double', value: 'Infinity' } },
    ]);
  });

  it('reports class, field, method and parameter annotations through inspect_android_class', async () => {
    interface Note {
      type: string;
      visibility: string;
      elements: { name: string; value: DexValue }[];
    }
    const { normalized_result } = await runTool<{
      annotations: Note[];
      fields: { name: string; annotations: Note[] }[];
      methods: { name: string; annotations: Note[]; parameter_annotations: Note[][] }[];
    }>(inspectAndroidClassTool, { path: DEX, class: 'android.arch.core.internal.SafeIterableMap$Entry' });
    expect(
      normalized_result.annotations.map((a) => `VISIBILITY_${a.visibility.toUpperCase()} ${annotationText(a)}`),
    ).toEqual([
      'VISIBILITY_SYSTEM Ldalvik/annotation/EnclosingClass; value=Landroid/arch/core/internal/SafeIterableMap;',
      'VISIBILITY_SYSTEM Ldalvik/annotation/InnerClass; accessFlags=8 name="Entry"',
      'VISIBILITY_SYSTEM Ldalvik/annotation/Signature; value={ "<K:" "Ljava/lang/Object;" "V:" "Ljava/lang/Object;" ">" "Ljava/lang/Object;" "Ljava/util/Map$Entry" "<TK;TV;>;" }',
    ]);
    expect(normalized_result.annotations[1]!.elements[0]).toEqual({
      name: 'accessFlags',
      value: { type: 'int', value: 8 },
    });
    const mKey = normalized_result.fields.find((f) => f.name === 'mKey')!;
    expect(mKey.annotations.map((a) => a.type)).toEqual([
      'Landroid/support/annotation/NonNull;',
      'Ldalvik/annotation/Signature;',
    ]);
    const init = normalized_result.methods.find((m) => m.name === '<init>')!;
    expect(init.parameter_annotations.map((p) => p.map((a) => a.type))).toEqual([
      ['Landroid/support/annotation/NonNull;'],
      ['Landroid/support/annotation/NonNull;'],
    ]);
    expect(normalized_result.methods.find((m) => m.name === 'getKey')!.annotations.map((a) => a.visibility)).toEqual([
      'build',
      'system',
    ]);
  });
});
