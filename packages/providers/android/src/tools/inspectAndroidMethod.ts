import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { disassemble } from '../format/dex/disassemble.js';
import type { DexTry } from '../format/dex/file.js';
import { accessNames } from '../model/access.js';
import { findClass, openPackage } from '../model/session.js';
import { ClassInput, PageInput, PathInput, androidEvidence } from './common.js';

/** `normalized_result` of `inspect_android_method`. */
export const AndroidMethodSchema = z.strictObject({
  class: z.string(),
  name: z.string(),
  descriptor: z.string(),
  access: z.array(z.string()),
  registers: z.number().int().nullable(),
  ins: z.number().int().nullable(),
  outs: z.number().int().nullable(),
  tries: z.number().int().nullable(),
  try_blocks: z
    .array(
      z.strictObject({
        start: z.number().int().describe('First code unit covered.'),
        end: z.number().int().describe('Code unit after the last one covered.'),
        catches: z
          .array(
            z.strictObject({
              type: z.string().nullable().describe('Exception type caught; null for a catch-all.'),
              handler: z.number().int().describe('Offset of the handler.'),
            }),
          )
          .describe('In the order they are tried.'),
      }),
    )
    .nullable()
    .describe('The try blocks and their handlers, in code units as instruction offsets are; null without code.'),
  code_units: z.number().int().nullable(),
  total_instructions: z.number().int(),
  instructions: z.array(
    z.strictObject({
      offset: z
        .number()
        .int()
        .describe('In 16-bit code units from the start of the code; a branch target in text (:N) is such an offset.'),
      text: z.string(),
    }),
  ),
  strings: z.array(z.string()),
  methods: z.array(z.string()),
  fields: z.array(z.string()),
  types: z.array(z.string()),
});

/** `inspect_android_method`: a method's bytecode as a smali-like listing with what it references. */
export const inspectAndroidMethodTool = defineTool({
  name: 'inspect_android_method',
  title: 'Inspect Android method',
  description:
    'Disassembles one method of an Android package or DEX file to a smali-like listing (paged with offset/limit, which count instructions; the offset of each instruction and its branch targets, written :N, are in 16-bit code units) and lists the strings, methods, fields and types it references. Overloads need descriptor; without it an ambiguous name is invalid_request listing the descriptors.',
  input: z.strictObject({
    path: PathInput,
    class: ClassInput,
    method: z.string().min(1).max(1024).describe('Method name, e.g. onCreate or <init>.'),
    descriptor: z.string().max(4096).optional().describe('(params)return, e.g. (Landroid/os/Bundle;)V.'),
    ...PageInput,
  }),
  result: AndroidMethodSchema,
  examples: [{ input: { path: '/tmp/app-release.apk', class: 'com.example.MainActivity', method: 'onCreate' } }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const site = findClass(pkg, input.class);
    const { file } = pkg.dex[site.dex]!;
    const data = file.classData(file.classDef(site.classDef).classDataOff);
    const candidates = [...data.directMethods, ...data.virtualMethods]
      .map((m) => ({ member: m, ref: file.method(m.index) }))
      .map((c) => ({ ...c, descriptor: `(${c.ref.proto.parameters.join('')})${c.ref.proto.returnType}` }))
      .filter(
        (c) => c.ref.name === input.method && (input.descriptor === undefined || c.descriptor === input.descriptor),
      );
    if (candidates.length !== 1) {
      const descriptors = candidates.map((c) => c.descriptor);
      throw new ReaError(
        candidates.length === 0 ? 'not_found' : 'invalid_request',
        candidates.length === 0
          ? `${site.descriptor} declares no method ${input.method}${input.descriptor ?? ''}.`
          : `${site.descriptor} declares ${candidates.length} methods named ${input.method}: ${descriptors.join(', ')}.`,
        {
          details: {
            reason: candidates.length === 0 ? 'no-such-method' : 'ambiguous-method',
            class: site.descriptor,
            descriptors,
          },
          remediation:
            candidates.length === 0 ? 'List the methods with inspect_android_class.' : 'Pass descriptor to choose one.',
        },
      );
    }
    const { member, ref, descriptor } = candidates[0]!;
    const limitations: Limitation[] = [];
    let code = null;
    let tryBlocks: DexTry[] | null = null;
    if (member.codeOff !== 0) {
      try {
        code = file.code(member.codeOff);
      } catch (error) {
        limitations.push({ kind: 'code-unreadable', message: (error as Error).message });
      }
      if (code !== null) {
        try {
          tryBlocks = file.tries(member.codeOff);
        } catch (error) {
          limitations.push({ kind: 'tries-unreadable', message: (error as Error).message });
        }
      }
    }
    const listing = code === null ? null : disassemble(file, code.insnsOff, code.insnsSize);
    if (listing?.truncated)
      limitations.push({
        kind: `listing-${listing.truncated}`,
        message: `The listing stopped early (${listing.truncated}).`,
      });
    if (listing !== null && listing.unknown > 0)
      limitations.push({ kind: 'unknown-opcodes', message: `${listing.unknown} unused opcodes met.` });
    const all = listing?.instructions ?? [];
    const page = all.slice(input.offset, input.offset + input.limit).map((i) => ({ offset: i.offset, text: i.text }));
    const refs = listing?.references;
    const result = {
      class: site.descriptor,
      name: ref.name,
      descriptor,
      access: accessNames(member.accessFlags, 'method'),
      registers: code?.registers ?? null,
      ins: code?.ins ?? null,
      outs: code?.outs ?? null,
      tries: code?.tries ?? null,
      try_blocks: tryBlocks,
      code_units: code?.insnsSize ?? null,
      total_instructions: all.length,
      instructions: page,
      strings: [...(refs?.strings.values() ?? [])],
      methods: [...(refs?.methods.keys() ?? [])].map((i) => {
        const m = file.method(i);
        return `${m.className}->${m.name}(${m.proto.parameters.join('')})${m.proto.returnType}`;
      }),
      fields: [...(refs?.fields.keys() ?? [])].map((i) => {
        const f = file.field(i);
        return `${f.className}->${f.name}:${f.type}`;
      }),
      // A caught type is used by the method as much as one it names in an instruction.
      types: [
        ...new Set([
          ...(refs?.types.values() ?? []),
          ...(tryBlocks ?? []).flatMap((t) => t.catches.flatMap((c) => (c.type === null ? [] : [c.type]))),
        ]),
      ],
    };
    const next = input.offset + page.length < all.length ? input.offset + page.length : null;
    const parameters = {
      class: site.descriptor,
      method: ref.name,
      descriptor,
      offset: input.offset,
      limit: input.limit,
    };
    return { ...androidEvidence(pkg, 'method', parameters, result, limitations, next), local: { path: input.path } };
  },
});
