// Bundles without a runtime wrapper (Rollup, Vite): scope hoisting leaves no factory per module, so
// the modules are read from the source map — each source's generated range, from its first mapped
// segment to where its last ends — and the bundler is named by its own markers: Vite's
// `__vite__mapDeps` preload list, its preload helper's `vite:preloadError` event and its
// modulepreload polyfill; Rollup's frozen namespace objects (`Object.freeze({ __proto__: null, … })`) and the
// helpers of its CommonJS plugin and interop (`getDefaultExportFromCjs`, `_interopNamespaceDefault`, …).
import type { EsNode } from '../engine/parser.js';
import type { DecodedSourceMap } from '../engine/sourceMap.js';
import type { ExportShape } from '../schemas.js';
import type { RecoveredModule } from './bundles.js';
import { shapeOf } from './facts.js';
import { stringValue, walk } from './walk.js';

const VITE_MARKER = /__vite__mapDeps|["']vite:preloadError["']|\.supports\(\s*["']modulepreload["']\s*\)/;
const ROLLUP_MARKER =
  /\b(?:getDefaultExportFromCjs|getAugmentedNamespace|commonjsGlobal|_interopNamespaceDefault(?:Only)?|_interopDefaultCompat|_mergeNamespaces|_documentCurrentScript)\b|Object\.freeze\(\s*(?:\/\*[^*]*\*\/\s*)?(?:Object\.defineProperty\(\s*)?\{\s*__proto__\s*:\s*null\b/;

/** The bundler whose markers `text` carries: Vite, Rollup, or null when none does. */
export function hoistingBundler(text: string): 'vite' | 'rollup' | null {
  if (VITE_MARKER.test(text)) return 'vite';
  return ROLLUP_MARKER.test(text) ? 'rollup' : null;
}

/** Offsets at which each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The modules of a scope-hoisted file from its decoded source map: one per source with mapped segments,
 * its id the source name, spanning its generated range. Ranges that fall outside `text` (a map of
 * another file) are skipped.
 */
export function mappedModules(
  map: DecodedSourceMap,
  text: string,
  bundler: RecoveredModule['bundler'],
  every?: () => void,
): RecoveredModule[] {
  const starts = lineStarts(text);
  const modules: RecoveredModule[] = [];
  for (const range of map.ranges()) {
    every?.();
    const id = map.sources[range.source];
    if (id === null || id === undefined || range.endLine >= starts.length) continue;
    const lineEnd = (line: number) => (line + 1 < starts.length ? starts[line + 1]! - 1 : text.length);
    const start = Math.min(starts[range.startLine]! + range.startColumn, lineEnd(range.startLine));
    const end =
      range.endColumn === null
        ? lineEnd(range.endLine)
        : Math.min(starts[range.endLine]! + range.endColumn, lineEnd(range.endLine));
    if (end <= start) continue;
    modules.push({
      bundler,
      moduleId: id,
      start,
      end,
      startLine: range.startLine + 1,
      endLine: range.endLine + 1,
      requireName: null,
      node: null,
      structure: null,
      exports: [],
    });
  }
  return modules;
}

type Declared = { node: EsNode; value: EsNode | null; id: EsNode };

/** The top-level declarations of `program` by name: functions, classes and variables. */
function declarations(program: EsNode): Map<string, Declared> {
  const found = new Map<string, Declared>();
  for (let statement of program.body as EsNode[]) {
    if (statement.type === 'ExportNamedDeclaration' && statement.declaration)
      statement = statement.declaration as EsNode;
    if (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') {
      const id = statement.id as EsNode | null;
      if (id) found.set(id.name as string, { node: statement, value: statement, id });
    } else if (statement.type === 'VariableDeclaration') {
      for (const d of statement.declarations as EsNode[]) {
        const id = d.id as EsNode;
        if (id.type === 'Identifier') found.set(id.name as string, { node: d, value: d.init as EsNode | null, id });
      }
    }
  }
  return found;
}

/**
 * Gives each mapped module the exports of the file that it declares: for `export { local as name }`
 * and `export const|function|class`, the module holding the declaration, under the name the source map
 * records for it (the source's own name; the local name when the map records none).
 */
export function assignMappedExports(
  program: EsNode,
  map: DecodedSourceMap,
  holder: (offset: number) => RecoveredModule | null,
): void {
  const declared = declarations(program);
  const assign = (local: string) => {
    const found = declared.get(local);
    const module = found ? holder(found.node.start ?? 0) : null;
    if (!found || !module || module.node !== null) return;
    const at = found.id.loc!.start;
    const name = map.nameAt(at.line - 1, at.column) ?? local;
    const shape: ExportShape = shapeOf(name, 'esm', found.value);
    if (!module.exports!.some((e) => e.name === shape.name)) module.exports!.push(shape);
  };
  for (const statement of program.body as EsNode[]) {
    if (statement.type !== 'ExportNamedDeclaration' || statement.source) continue;
    for (const specifier of (statement.specifiers as EsNode[]) ?? [])
      assign((specifier.local as EsNode).name as string);
    const declaration = statement.declaration as EsNode | null;
    if (declaration?.type === 'VariableDeclaration') {
      for (const d of declaration.declarations as EsNode[]) {
        const id = d.id as EsNode;
        if (id.type === 'Identifier') assign(id.name as string);
      }
    } else if (declaration) {
      const id = declaration.id as EsNode | null;
      if (id) assign(id.name as string);
    }
  }
}

/** A file Vite's preload helper loads before a dynamic import, named relative to the build's base. */
export interface PreloadDependency {
  path: string;
  offset: number;
  line: number;
  column: number;
}

/**
 * Vite's preload lists: the files of `__vite__mapDeps`'s table (`m.f = ["assets/x.js", …]`) that each
 * `__vite__mapDeps([i, …])` call passes to the preload helper beside a dynamic import.
 */
export function vitePreloads(program: EsNode, every?: () => void): PreloadDependency[] {
  let table: string[] = [];
  const calls: { indices: number[]; node: EsNode }[] = [];
  walk(
    program,
    (node) => {
      if (node.type === 'VariableDeclarator' && (node.id as EsNode).name === '__vite__mapDeps') {
        walk(node.init as EsNode, (inner) => {
          if (inner.type !== 'ArrayExpression') return true;
          const values = (inner.elements as (EsNode | null)[]).map((e) => stringValue(e));
          if (values.length > 0 && values.every((v) => v !== null)) table = values as string[];
          return false;
        });
        return false;
      }
      if (node.type === 'CallExpression' && (node.callee as EsNode).name === '__vite__mapDeps') {
        const [list] = node.arguments as EsNode[];
        if (list?.type === 'ArrayExpression') {
          const indices = (list.elements as (EsNode | null)[]).map((e) => (e?.type === 'Literal' ? e.value : null));
          calls.push({ indices: indices.filter((i): i is number => typeof i === 'number'), node });
        }
      }
      return true;
    },
    every,
  );
  return calls.flatMap(({ indices, node }) =>
    indices
      .filter((i) => table[i] !== undefined)
      .map((i) => ({
        path: table[i]!,
        offset: node.start ?? 0,
        line: node.loc!.start.line,
        column: node.loc!.start.column,
      })),
  );
}
