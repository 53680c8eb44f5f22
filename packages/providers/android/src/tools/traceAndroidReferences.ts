import { z } from 'zod';
import { ReaError, throwIfAborted } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { JsonObject, Limitation } from '@rea/evidence';
import type { DexFile } from '../format/dex/file.js';
import { OPCODES } from '../format/dex/opcodes.js';
import { scanIndexes } from '../format/dex/scan.js';
import type { IndexUse } from '../format/dex/scan.js';
import { DexCallSites } from '../format/dex/callSites.js';
import type { DexMethodHandle } from '../format/dex/callSites.js';
import { openPackage, toDescriptor } from '../model/session.js';
import { PageInput, PathInput, androidEvidence } from './common.js';

/** Sites collected at most per call (before paging). */
export const MAX_SITES = 100_000;

const TargetSchema = z.strictObject({
  kind: z.enum(['method', 'field', 'string', 'class']).describe('What to find uses of.'),
  class: z.string().max(4096).optional().describe('Declaring class (method, field) or the class itself (class).'),
  name: z.string().max(1024).optional().describe('Method or field name.'),
  descriptor: z.string().max(4096).optional().describe('Method (params)return or field type; all when absent.'),
  value: z.string().max(65_536).optional().describe('The string (kind string), matched exactly.'),
});

/** `normalized_result` of `trace_android_references`. */
export const ReferenceTraceSchema = z.strictObject({
  total: z.number().int(),
  sites: z.array(
    z.strictObject({
      class: z.string(),
      method: z.string().describe('name(params)return of the method holding the use.'),
      offset: z.number().int().describe('Instruction offset in 16-bit units.'),
      instruction: z.string(),
      target: z.string(),
    }),
  ),
});

type Target = z.infer<typeof TargetSchema>;

/** Indexes in `dex` of what `target` names, with their text. */
function targets(
  dex: DexFile,
  target: Target,
): { kind: 'string' | 'type' | 'field' | 'method'; ids: Map<number, string> } {
  const ids = new Map<number, string>();
  const cls = target.class === undefined ? undefined : toDescriptor(target.class);
  if (target.kind === 'string') {
    for (let i = 0; i < dex.strings.size; i++)
      if (dex.string(i) === target.value) ids.set(i, JSON.stringify(target.value));
    return { kind: 'string', ids };
  }
  if (target.kind === 'class') {
    for (let i = 0; i < dex.types.size; i++) if (dex.type(i) === cls) ids.set(i, cls);
    return { kind: 'type', ids };
  }
  if (target.kind === 'field') {
    for (let i = 0; i < dex.fields.size; i++) {
      const f = dex.field(i);
      if (
        (cls === undefined || f.className === cls) &&
        (target.name === undefined || f.name === target.name) &&
        (target.descriptor === undefined || f.type === target.descriptor)
      ) {
        ids.set(i, `${f.className}->${f.name}:${f.type}`);
      }
    }
    return { kind: 'field', ids };
  }
  for (let i = 0; i < dex.methods.size; i++) {
    if (cls !== undefined && dex.methodClass(i) !== cls) continue;
    const m = dex.method(i);
    const d = `(${m.proto.parameters.join('')})${m.proto.returnType}`;
    if (
      (target.name === undefined || m.name === target.name) &&
      (target.descriptor === undefined || d === target.descriptor)
    ) {
      ids.set(i, `${m.className}->${m.name}${d}`);
    }
  }
  return { kind: 'method', ids };
}

/**
 * The method handles an `invoke-custom` (its call site's bootstrap method and the handles among its link
 * arguments, such as a lambda's body) or a `const-method-handle` reaches, with how the target text
 * names the way; none for other instructions or an index out of range.
 */
function handlesOf(sites: DexCallSites, use: IndexUse): { handle: DexMethodHandle; via: string }[] {
  if (use.kind === 'method_handle') {
    const handle = sites.handle(use.index);
    return handle === null ? [] : [{ handle, via: `method_handle@${use.index}` }];
  }
  if (use.kind !== 'call_site') return [];
  const site = sites.callSite(use.index);
  if (site === null) return [];
  return [
    ...(site.bootstrap === null ? [] : [{ handle: site.bootstrap, via: `bootstrap of call_site@${use.index}` }]),
    ...site.handles.map((handle) => ({ handle, via: `argument of call_site@${use.index}` })),
  ];
}

/**
 * A target that names what to trace: `value` for a string, `class` for a class, and `class` or `name`
 * (or both) for a method or field. A target naming nothing would match every use of its kind, or none:
 * `invalid_request`, saying what to add.
 */
function checkTarget(target: Target): void {
  const missing =
    target.kind === 'string'
      ? target.value === undefined
        ? 'value (the string, matched exactly)'
        : null
      : target.kind === 'class'
        ? target.class === undefined
          ? 'class (Lcom/example/Foo; or com.example.Foo)'
          : null
        : target.class === undefined && target.name === undefined
          ? `class or name of the ${target.kind} (or both)`
          : null;
  if (missing === null) return;
  throw new ReaError('invalid_request', `A ${target.kind} target needs ${missing}.`, {
    details: { reason: 'incomplete-target', kind: target.kind },
    remediation: `Add ${missing.replace(/ \(.*\)$/, '')} to target, e.g. { "kind": "method", "class": "java.lang.System", "name": "loadLibrary" }.`,
  });
}

/** `trace_android_references`: every instruction that calls a method, reads or writes a field, loads a string or uses a class. */
export const traceAndroidReferencesTool = defineTool({
  name: 'trace_android_references',
  title: 'Trace Android references',
  description:
    'Finds every instruction in an Android package or DEX file (all DEX files) that calls a method (invoke-custom through its bootstrap method or a method handle argument, such as a lambda body), reads or writes a field, loads a string or uses a class (new-instance, const-class, casts), with the holding method; paged with offset/limit.',
  input: z.strictObject({ path: PathInput, target: TargetSchema.describe('What to trace.'), ...PageInput }),
  result: ReferenceTraceSchema,
  examples: [
    {
      input: {
        path: '/tmp/app-release.apk',
        target: { kind: 'method', class: 'java.lang.System', name: 'loadLibrary' },
      },
      description: 'Who loads native libraries.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    checkTarget(input.target);
    const pkg = await openPackage(input.path, context.signal);
    const found: z.infer<typeof ReferenceTraceSchema>['sites'] = [];
    const limitations: Limitation[] = [];
    let cut = false;
    for (const { file, path } of pkg.dex) {
      const { kind, ids } = targets(file, input.target);
      if (ids.size === 0) continue;
      let sites: DexCallSites | null = null;
      if (kind === 'method' || kind === 'field') {
        try {
          sites = new DexCallSites(file);
        } catch (error) {
          limitations.push({ kind: 'call-sites-unreadable', message: (error as Error).message, scope: path });
        }
      }
      for (let c = 0; c < file.classDefs.size && !cut; c++) {
        throwIfAborted(context.signal, 'tracing');
        const def = file.classDef(c);
        let data;
        try {
          data = file.classData(def.classDataOff);
        } catch {
          limitations.push({
            kind: 'class-data-unreadable',
            message: 'Its class data lies outside the file.',
            scope: file.type(def.classIdx),
          });
          continue;
        }
        for (const m of [...data.directMethods, ...data.virtualMethods]) {
          if (m.codeOff === 0) continue;
          let code;
          try {
            code = file.code(m.codeOff);
          } catch {
            continue;
          }
          const add = (use: IndexUse, target: string) => {
            if (found.length >= MAX_SITES) return;
            const ref = file.method(m.index);
            found.push({
              class: ref.className,
              method: `${ref.name}(${ref.proto.parameters.join('')})${ref.proto.returnType}`,
              offset: use.offset,
              instruction: OPCODES[use.opcode]!.name,
              target,
            });
          };
          scanIndexes(file, code.insnsOff, code.insnsSize, (use) => {
            if (use.kind === kind && ids.has(use.index)) return add(use, ids.get(use.index)!);
            if (sites === null) return;
            try {
              for (const { handle, via } of handlesOf(sites, use))
                if (handle.kind === kind && ids.has(handle.index)) add(use, `${ids.get(handle.index)!} (${via})`);
            } catch (error) {
              limitations.push({ kind: 'call-site-unreadable', message: (error as Error).message, scope: path });
            }
          });
          if (found.length >= MAX_SITES) cut = true;
        }
      }
    }
    if (cut) limitations.push({ kind: 'trace-cut', message: `More than ${MAX_SITES} sites; the first are listed.` });
    const page = found.slice(input.offset, input.offset + input.limit);
    const next = input.offset + page.length < found.length ? input.offset + page.length : null;
    const parameters = {
      target: JSON.parse(JSON.stringify(input.target)) as JsonObject,
      offset: input.offset,
      limit: input.limit,
    };
    return {
      ...androidEvidence(pkg, 'references', parameters, { total: found.length, sites: page }, limitations, next),
      local: { path: input.path },
    };
  },
});
