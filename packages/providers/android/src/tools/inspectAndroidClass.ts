import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { Limitation } from '@rea/evidence';
import { readAnnotations } from '../format/dex/annotations.js';
import type { DexAnnotations } from '../format/dex/annotations.js';
import { accessNames } from '../model/access.js';
import { findClass, openPackage } from '../model/session.js';
import { ClassInput, PageInput, PathInput, androidEvidence } from './common.js';

/** A DEX annotation with its elements' values decoded. */
const AnnotationSchema = z.strictObject({
  type: z.string(),
  visibility: z.string().describe('build, runtime or system.'),
  elements: z.array(
    z.strictObject({
      name: z.string(),
      value: z
        .unknown()
        .describe(
          '{type, value}: type byte|short|char|int|long|float|double|boolean|null|string|type|field|method|enum|method_type|method_handle (value a number, boolean, null or string; long as a decimal string), array (value: a list of {type, value}) or annotation (value: {type, elements}).',
        ),
    }),
  ),
});

/** `normalized_result` of `inspect_android_class`. */
export const AndroidClassSchema = z.strictObject({
  descriptor: z.string(),
  dex: z.string(),
  access: z.array(z.string()),
  superclass: z.string().nullable(),
  interfaces: z.array(z.string()),
  source_file: z.string().nullable(),
  annotations: z.array(AnnotationSchema),
  fields: z.array(
    z.strictObject({
      name: z.string(),
      type: z.string(),
      access: z.array(z.string()),
      annotations: z.array(AnnotationSchema),
    }),
  ),
  total_methods: z.number().int(),
  methods: z.array(
    z.strictObject({
      name: z.string(),
      descriptor: z.string().describe('(params)return.'),
      access: z.array(z.string()),
      code_units: z.number().int().nullable().describe('Instruction length in 16-bit units; null without code.'),
      annotations: z.array(AnnotationSchema),
      parameter_annotations: z.array(z.array(AnnotationSchema)).describe('One list per parameter; empty without any.'),
    }),
  ),
});

/** `inspect_android_class`: one class's declaration, fields and methods (methods paged). */
export const inspectAndroidClassTool = defineTool({
  name: 'inspect_android_class',
  title: 'Inspect Android class',
  description:
    'One class of an Android package or DEX file: access flags, superclass, interfaces, source file, annotations of the class, fields, methods and parameters with their values decoded, fields, and methods with descriptors, access flags and code size (methods paged with offset/limit).',
  input: z.strictObject({ path: PathInput, class: ClassInput, ...PageInput }),
  result: AndroidClassSchema,
  examples: [{ input: { path: '/tmp/app-release.apk', class: 'com.example.MainActivity' } }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const site = findClass(pkg, input.class);
    const { file, path } = pkg.dex[site.dex]!;
    const def = file.classDef(site.classDef);
    const limitations: Limitation[] = [];
    const faultsBefore = file.faults;
    const data = file.classData(def.classDataOff);
    let notes: DexAnnotations = { classAnnotations: [], fields: new Map(), methods: new Map(), parameters: new Map() };
    try {
      notes = readAnnotations(file, def.annotationsOff);
    } catch (error) {
      limitations.push({ kind: 'annotations-unreadable', message: (error as Error).message });
    }
    const fields = [...data.staticFields, ...data.instanceFields].map((m) => {
      const f = file.field(m.index);
      return {
        name: f.name,
        type: f.type,
        access: accessNames(m.accessFlags, 'field'),
        annotations: notes.fields.get(m.index) ?? [],
      };
    });
    const all = [...data.directMethods, ...data.virtualMethods];
    const methods = all.slice(input.offset, input.offset + input.limit).map((m) => {
      const ref = file.method(m.index);
      let units: number | null = null;
      if (m.codeOff !== 0) {
        try {
          units = file.code(m.codeOff).insnsSize;
        } catch {
          limitations.push({
            kind: 'code-unreadable',
            message: 'Its code item lies outside the file.',
            scope: ref.name,
          });
        }
      }
      return {
        name: ref.name,
        descriptor: `(${ref.proto.parameters.join('')})${ref.proto.returnType}`,
        access: accessNames(m.accessFlags, 'method'),
        code_units: units,
        annotations: notes.methods.get(m.index) ?? [],
        parameter_annotations: notes.parameters.get(m.index) ?? [],
      };
    });
    const result = {
      descriptor: site.descriptor,
      dex: path,
      access: accessNames(def.accessFlags, 'class'),
      superclass: def.superclassIdx === 0xffffffff ? null : file.type(def.superclassIdx),
      interfaces: file.typeList(def.interfacesOff),
      source_file: def.sourceFileIdx === 0xffffffff ? null : file.string(def.sourceFileIdx),
      annotations: notes.classAnnotations,
      fields,
      total_methods: all.length,
      methods,
    };
    if (file.faults > faultsBefore) {
      limitations.push({
        kind: 'index-out-of-range',
        message: `${file.faults - faultsBefore} indexes out of range read as placeholders.`,
      });
    }
    const next = input.offset + methods.length < all.length ? input.offset + methods.length : null;
    return {
      ...androidEvidence(
        pkg,
        'class',
        { class: site.descriptor, offset: input.offset, limit: input.limit },
        result,
        limitations,
        next,
      ),
      local: { path: input.path },
    };
  },
});
