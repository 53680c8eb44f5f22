import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { Limitation } from '@rea/evidence';
import { NO_INDEX } from '../format/dex/file.js';
import { scanIndexes } from '../format/dex/scan.js';
import { ClassEdges, MAX_CLASS_EDGES } from '../model/classGraph.js';
import { inspectUnit } from '../model/inspect.js';
import { openPackage, toDescriptor } from '../model/session.js';
import { PageInput, PathInput, androidEvidence } from './common.js';

/** `normalized_result` of `project_android_application_graph`. */
export const ApplicationGraphSchema = z.strictObject({
  total_edges: z.number().int(),
  nodes: z.array(
    z.strictObject({ id: z.string(), kind: z.enum(['component', 'class', 'native_library']), label: z.string() }),
  ),
  edges: z.array(
    z.strictObject({
      from: z.string(),
      to: z.string(),
      kind: z.enum(['implemented_by', 'loads_library', 'packaged', 'extends', 'implements', 'calls']),
      evidence: z.string().describe('Where the edge was observed.'),
    }),
  ),
});

type Edge = z.infer<typeof ApplicationGraphSchema>['edges'][number];

/** `project_android_application_graph`: manifest components → their classes → the native libraries they load. */
export const projectAndroidApplicationGraphTool = defineTool({
  name: 'project_android_application_graph',
  title: 'Project Android application graph',
  description:
    "Graph of an Android package: manifest components → the DEX classes implementing them → native libraries loaded (System.loadLibrary/load with a constant name) and packaged per ABI, and edges between the package's own classes (extends, implements, calls with the first call site and count), each edge with its evidence (manifest entry, calling method, ZIP path); edges paged with offset/limit.",
  input: z.strictObject({ path: PathInput, ...PageInput }),
  result: ApplicationGraphSchema,
  examples: [{ input: { path: '/tmp/app-release.apk' } }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const limitations: Limitation[] = [];
    const edges: Edge[] = [];
    const libraries = new Map<string, string[]>();
    for (const unit of pkg.loaded.units) {
      const report = inspectUnit(unit, limitations);
      for (const c of report.manifest?.components ?? []) {
        const descriptor = toDescriptor(c.name);
        edges.push({
          from: `component:${c.name}`,
          to: `class:${descriptor}`,
          kind: 'implemented_by',
          evidence: pkg.classes.has(descriptor)
            ? `AndroidManifest.xml <${c.kind}>`
            : `AndroidManifest.xml <${c.kind}> (class not in DEX)`,
        });
      }
      for (const { abi, libraries: libs } of report.native_libraries) {
        for (const lib of libs) libraries.set(lib, [...(libraries.get(lib) ?? []), abi]);
      }
    }
    const classEdges = new ClassEdges(pkg.classes);
    for (const { file } of pkg.dex) {
      const loaders = new Set<number>();
      for (let i = 0; i < file.methods.size; i++) {
        if (file.methodClass(i) !== 'Ljava/lang/System;' && file.methodClass(i) !== 'Ljava/lang/Runtime;') continue;
        const name = file.method(i).name;
        if (name === 'loadLibrary' || name === 'load') loaders.add(i);
      }
      for (let c = 0; c < file.classDefs.size; c++) {
        const def = file.classDef(c);
        const cls = file.type(def.classIdx);
        classEdges.hierarchy(
          cls,
          def.superclassIdx === NO_INDEX ? null : file.type(def.superclassIdx),
          file.typeList(def.interfacesOff),
        );
        let data;
        try {
          data = file.classData(def.classDataOff);
        } catch {
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
          let lastString: string | null = null;
          const ref = file.method(m.index);
          const caller = `${ref.className}->${ref.name}(${ref.proto.parameters.join('')})${ref.proto.returnType}`;
          scanIndexes(file, code.insnsOff, code.insnsSize, (use) => {
            if (use.kind === 'method') classEdges.call(file, cls, caller, use.index, use.offset);
            if (use.kind === 'string') lastString = file.string(use.index);
            else if (use.kind === 'method' && loaders.has(use.index) && lastString !== null) {
              const called = file.method(use.index).name;
              const lib = called === 'loadLibrary' ? `lib${lastString}.so` : lastString.split('/').at(-1)!;
              edges.push({
                from: `class:${ref.className}`,
                to: `native:${lib}`,
                kind: 'loads_library',
                evidence: `${ref.className}->${ref.name} calls ${called}("${lastString}") at ${use.offset}`,
              });
            }
          });
        }
      }
    }
    for (const [lib, abis] of libraries) {
      edges.push({
        from: 'package',
        to: `native:${lib}`,
        kind: 'packaged',
        evidence: `lib/{${abis.join(',')}}/${lib}`,
      });
    }
    edges.push(...classEdges.all());
    if (classEdges.cut) {
      limitations.push({
        kind: 'class-edges-cut',
        message: `More than ${MAX_CLASS_EDGES} class-to-class edges; the first are listed.`,
      });
    }
    const page = edges.slice(input.offset, input.offset + input.limit);
    const ids = new Set(page.flatMap((e) => [e.from, e.to]).filter((id) => id !== 'package'));
    const nodes = [...ids].sort().map((id) => {
      const [kind, label] = [id.slice(0, id.indexOf(':')), id.slice(id.indexOf(':') + 1)];
      return {
        id,
        kind: (kind === 'native' ? 'native_library' : kind) as 'component' | 'class' | 'native_library',
        label,
      };
    });
    const next = input.offset + page.length < edges.length ? input.offset + page.length : null;
    return {
      ...androidEvidence(
        pkg,
        'application-graph',
        { offset: input.offset, limit: input.limit },
        { total_edges: edges.length, nodes, edges: page },
        limitations,
        next,
      ),
      local: { path: input.path },
    };
  },
});
