// Modules recovered from the runtime shapes bundlers emit. esbuild: the `__commonJS`/`__esm` wrappers
// (`var require_x = __commonJS({ "src/x.js"(exports, module) { … } })`, calls `require_x()` are edges)
// and the `// src/x.js` comments that open each scope-hoisted module in an unminified bundle.
import type { EsNode, LineComment } from '../engine/parser.js';
import { stringValue, walk } from './walk.js';

/** A bundled module: the bundler's id and the lines it spans in its file. */
export interface RecoveredModule {
  bundler: 'esbuild';
  moduleId: string;
  startLine: number;
  endLine: number;
}

/** An edge between two bundled modules of one file, found in the bundler's runtime calls. */
export interface RecoveredEdge {
  fromLine: number;
  fromColumn: number;
  toModuleId: string;
  specifier: string;
}

/** What {@link recoverBundle} found in one file. */
export interface RecoveredBundle {
  bundler: 'esbuild' | null;
  modules: RecoveredModule[];
  edges: RecoveredEdge[];
}

const MODULE_PATH = /^[\w@.+~-]+(?:\/[\w@.+~-]+)*\.(?:[cm]?[jt]sx?|json|css|vue|svelte)$/;

/** `{ "src/x.js"(exports, module) { … } }`: the single keyed function of an esbuild wrapper. */
function wrapperOf(node: EsNode): { id: string; fn: EsNode } | null {
  if (node.type !== 'CallExpression') return null;
  const [arg] = node.arguments as EsNode[];
  if (arg?.type !== 'ObjectExpression') return null;
  const properties = arg.properties as EsNode[];
  if (properties.length !== 1 || properties[0]!.type !== 'Property') return null;
  const key = stringValue(properties[0]!.key);
  const fn = properties[0]!.value as EsNode;
  if (key === null || !MODULE_PATH.test(key) || !/Function/.test(fn.type)) return null;
  return { id: key, fn };
}

/**
 * Recovers esbuild's modules from `program`: wrapped CommonJS/lazy ESM modules with their
 * `require_x()`/`init_x()` edges, and scope-hoisted modules from the line comments that name them
 * (each spans to the line before the next one). A file with neither is not a recognised bundle.
 */
export function recoverBundle(program: EsNode, comments: LineComment[], every?: () => void): RecoveredBundle {
  const modules: RecoveredModule[] = [];
  const variables = new Map<string, string>();
  const calls: { name: string; line: number; column: number }[] = [];
  walk(
    program,
    (node) => {
      if (node.type === 'VariableDeclarator' && node.init) {
        const wrapper = wrapperOf(node.init as EsNode);
        const id = node.id as EsNode;
        if (wrapper !== null) {
          modules.push({
            bundler: 'esbuild',
            moduleId: wrapper.id,
            startLine: wrapper.fn.loc!.start.line,
            endLine: wrapper.fn.loc!.end.line,
          });
          if (id.type === 'Identifier') variables.set(id.name as string, wrapper.id);
        }
      } else if (node.type === 'CallExpression' && (node.arguments as unknown[]).length === 0) {
        const callee = node.callee as EsNode;
        if (callee.type === 'Identifier') {
          calls.push({ name: callee.name as string, line: node.loc!.start.line, column: node.loc!.start.column });
        }
      }
      return true;
    },
    every,
  );
  const wrapped = new Set(modules.map((m) => m.moduleId));
  const markers = comments.filter((c) => MODULE_PATH.test(c.value));
  const lastLine = program.loc?.end.line ?? 1;
  markers.forEach((marker, index) => {
    if (wrapped.has(marker.value)) return;
    const next = markers[index + 1];
    modules.push({
      bundler: 'esbuild',
      moduleId: marker.value,
      startLine: marker.line,
      endLine: next ? Math.max(marker.line, next.line - 1) : lastLine,
    });
  });
  const edges = calls
    .filter((c) => variables.has(c.name))
    .map((c) => ({ fromLine: c.line, fromColumn: c.column, toModuleId: variables.get(c.name)!, specifier: c.name }));
  const recognised = modules.length > 0 && (variables.size > 0 || markers.length > 1);
  return recognised ? { bundler: 'esbuild', modules, edges } : { bundler: null, modules: [], edges: [] };
}
