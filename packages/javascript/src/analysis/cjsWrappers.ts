// The wrappers Rollup's CommonJS plugin (Vite's too) puts around each CommonJS module it bundles:
//   function requireLegacy () { if (hasRequiredLegacy) return legacy; hasRequiredLegacy = 1; … return legacy; }
// and once minified `function c(){return t||(t=1,r={…}),r}`: a function without parameters whose first
// act is to return the module's exports when its flag is set, else set the flag to 1. Each is a
// module, its id the wrapper's name, and each call of a wrapper an edge to it.
import type { EsNode } from '../engine/parser.js';
import type { RecoveredEdge, RecoveredModule } from './bundles.js';
import { holderIndex } from './holders.js';
import { walk } from './walk.js';

const isFlagSet = (node: EsNode | undefined, flag: string): boolean => {
  const set = node?.type === 'ExpressionStatement' ? (node.expression as EsNode) : node;
  if (set?.type !== 'AssignmentExpression' || set.operator !== '=') return false;
  const left = set.left as EsNode;
  const right = set.right as EsNode;
  return left.type === 'Identifier' && left.name === flag && right.type === 'Literal' && right.value === 1;
};

/** The flag a wrapper's body tests first, when `fn` has the shape of the module comment. */
function wrapperFlag(fn: EsNode): boolean {
  if ((fn.params as EsNode[]).length !== 0) return false;
  const body = (fn.body as EsNode).body as EsNode[];
  const [first, second] = body;
  if (first?.type === 'IfStatement' && (first.test as EsNode).type === 'Identifier') {
    const returns = first.consequent as EsNode;
    return returns.type === 'ReturnStatement' && isFlagSet(second, (first.test as EsNode).name as string);
  }
  const sequence = first?.type === 'ReturnStatement' ? (first.argument as EsNode | null) : null;
  const test = sequence?.type === 'SequenceExpression' ? (sequence.expressions as EsNode[])[0] : null;
  if (body.length !== 1 || test?.type !== 'LogicalExpression' || test.operator !== '||') return false;
  const flag = test.left as EsNode;
  const right = test.right as EsNode;
  const set = right.type === 'SequenceExpression' ? (right.expressions as EsNode[])[0] : right;
  return flag.type === 'Identifier' && isFlagSet(set, flag.name as string);
}

/** The CommonJS modules Rollup wrapped in `program`, and the calls of their wrappers. */
export function commonjsWrappers(
  program: EsNode,
  every?: () => void,
): { modules: RecoveredModule[]; edges: RecoveredEdge[] } {
  const modules: RecoveredModule[] = [];
  const calls: EsNode[] = [];
  walk(
    program,
    (node) => {
      if (node.type === 'FunctionDeclaration' && node.id && wrapperFlag(node)) {
        modules.push({
          bundler: 'rollup',
          moduleId: (node.id as EsNode).name as string,
          start: node.start ?? 0,
          end: node.end ?? 0,
          startLine: node.loc!.start.line,
          endLine: node.loc!.end.line,
          requireName: null,
          node,
          structure: null,
        });
      } else if (node.type === 'CallExpression' && (node.arguments as EsNode[]).length === 0) {
        if ((node.callee as EsNode).type === 'Identifier') calls.push(node);
      }
      return true;
    },
    every,
  );
  const ids = new Set(modules.map((m) => m.moduleId));
  const holderOf = holderIndex(modules);
  const edges = calls
    .filter((call) => ids.has((call.callee as EsNode).name as string))
    .filter((call) => holderOf(call.start ?? 0)?.moduleId !== (call.callee as EsNode).name)
    .map((call) => {
      const id = (call.callee as EsNode).name as string;
      const { line, column } = call.loc!.start;
      return { offset: call.start ?? 0, line, column, toModuleId: id, specifier: `${id}()` };
    });
  return { modules, edges };
}
