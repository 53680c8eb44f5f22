// Imports between the chunks of one build, module to module. A chunk imports bindings of another
// (`import { w as whisper } from './main-3f2a.js'`) at its top, outside every module's span, and the
// other exports them from the module that declares each (`export { whisper as w }`). Both sides are
// read where the chunk is parsed: what each export name is declared by, and which modules use each
// imported binding; once the edges are resolved, a file-to-file import becomes edges from each module
// using a binding to the module declaring it. A re-export (`export { r as run } from './main-3f2a.js'`,
// an entry's facade) leaves from its file, to the modules declaring what it re-exports.
import type { EsNode } from '../engine/parser.js';
import type { Edge } from '../schemas.js';
import type { RecoveredModule } from './bundles.js';
import { bundledNodeId } from './fileRecord.js';
import { holderIndex } from './holders.js';
import { walk } from './walk.js';

/** What a chunk exports and imports, by module (plain data, so a worker can hand it over). */
export interface ChunkLinks {
  /** Chunk export name → id of the module declaring it. */
  exports: Record<string, string>;
  /** Each named import of a relative file: where it is (its edge's position) and who uses each name. */
  imports: { line: number; column: number; names: { imported: string; users: string[] }[]; reexport: boolean }[];
}

const nameOf = (node: EsNode): string => String(node.name ?? node.value);

/** Offsets of the top-level declarations of `program` by name. */
function declared(body: EsNode[]): Map<string, number> {
  const found = new Map<string, number>();
  for (let statement of body) {
    if (statement.type === 'ExportNamedDeclaration' && statement.declaration)
      statement = statement.declaration as EsNode;
    const id = statement.id as EsNode | null | undefined;
    if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && id)
      found.set(id.name as string, statement.start ?? 0);
    if (statement.type === 'VariableDeclaration') {
      for (const d of statement.declarations as EsNode[]) {
        if ((d.id as EsNode).type === 'Identifier') found.set((d.id as EsNode).name as string, d.start ?? 0);
      }
    }
  }
  return found;
}

/** The {@link ChunkLinks} of a scope-hoisted file whose modules are `modules` (a facade has none), or null. */
export function chunkLinks(program: EsNode, modules: RecoveredModule[], every?: () => void): ChunkLinks | null {
  const hoisted = modules.filter((m) => m.node === null);
  const holder = holderIndex(hoisted);
  const body = program.body as EsNode[];
  const declarations = declared(body);
  const links: ChunkLinks = { exports: {}, imports: [] };
  const users = new Map<string, Set<string>>();
  const imports: { at: EsNode; names: [string, string][]; reexport: boolean }[] = [];
  const relative = (statement: EsNode) => String((statement.source as EsNode).value).startsWith('.');
  for (const statement of body) {
    if (statement.type === 'ExportNamedDeclaration' && statement.source && relative(statement)) {
      const names = ((statement.specifiers as EsNode[]) ?? []).map((s): [string, string] => [
        nameOf(s.local as EsNode),
        '',
      ]);
      if (names.length > 0) imports.push({ at: statement, names, reexport: true });
    } else if (statement.type === 'ExportNamedDeclaration' && !statement.source) {
      for (const s of (statement.specifiers as EsNode[]) ?? []) {
        const at = declarations.get((s.local as EsNode).name as string);
        const module = at === undefined ? null : holder(at);
        if (module !== null) links.exports[nameOf(s.exported as EsNode)] = module.moduleId;
      }
      const declaration = statement.declaration as EsNode | null;
      const module = declaration ? holder(declaration.start ?? 0) : null;
      if (declaration && module !== null) {
        const ids =
          declaration.type === 'VariableDeclaration'
            ? (declaration.declarations as EsNode[]).map((d) => d.id as EsNode)
            : [declaration.id as EsNode];
        for (const id of ids) if (id?.type === 'Identifier') links.exports[id.name as string] = module.moduleId;
      }
    } else if (statement.type === 'ImportDeclaration' && hoisted.length > 0 && relative(statement)) {
      const names: [string, string][] = [];
      for (const s of statement.specifiers as EsNode[]) {
        const imported =
          s.type === 'ImportDefaultSpecifier'
            ? 'default'
            : s.type === 'ImportSpecifier'
              ? nameOf(s.imported as EsNode)
              : null;
        if (imported === null) continue;
        names.push([imported, (s.local as EsNode).name as string]);
        users.set((s.local as EsNode).name as string, new Set());
      }
      if (names.length > 0) imports.push({ at: statement, names, reexport: false });
    }
  }
  if (users.size > 0) {
    const properties = new WeakSet<EsNode>();
    walk(
      program,
      (node) => {
        if (node.type === 'ImportDeclaration') return false;
        if (node.type === 'MemberExpression' && !node.computed) properties.add(node.property as EsNode);
        if (node.type === 'Property' && !node.computed && !node.shorthand) properties.add(node.key as EsNode);
        if (node.type !== 'Identifier' || properties.has(node)) return true;
        const using = users.get(node.name as string);
        const module = using === undefined ? null : holder(node.start ?? 0);
        if (module !== null) using!.add(module.moduleId);
        return true;
      },
      every,
    );
  }
  for (const { at, names, reexport } of imports) {
    links.imports.push({
      line: at.loc!.start.line,
      column: at.loc!.start.column,
      names: names.map(([imported, local]) => ({ imported, users: reexport ? [] : [...users.get(local)!].sort() })),
      reexport,
    });
  }
  return links.imports.length > 0 || Object.keys(links.exports).length > 0 ? links : null;
}

/**
 * Replaces each resolved `import` of one chunk by another with edges from each module using an
 * imported binding to the module declaring it, and each `export-from` with edges from its file to the
 * modules declaring what it re-exports (modules in `listed` only); the file edge stays when some name
 * is not placed on both sides.
 */
export function moduleImports(
  edges: Edge[],
  links: ReadonlyMap<string, ChunkLinks>,
  fileOf: ReadonlyMap<string, string>,
  listed: ReadonlySet<string>,
): Edge[] {
  const out: Edge[] = [];
  for (const edge of edges) {
    const from = fileOf.get(edge.from) ?? edge.from;
    const kind = edge.kind === 'import' || edge.kind === 'export-from';
    const importing = kind && edge.to !== null ? links.get(from) : undefined;
    const statement = importing?.imports.find((i) => i.line === edge.line && i.column === edge.column);
    const exporting = edge.to === null ? undefined : links.get(edge.to);
    if (statement === undefined || exporting === undefined) {
      out.push(edge);
      continue;
    }
    const pairs = new Set<string>();
    let whole = true;
    for (const { imported, users } of statement.names) {
      const declaring = exporting.exports[imported];
      const to = declaring === undefined ? null : bundledNodeId(edge.to!.slice('file:'.length), declaring);
      const using = statement.reexport
        ? [edge.from]
        : users.map((u) => bundledNodeId(from.slice('file:'.length), u)).filter((u) => listed.has(u));
      if (to === null || !listed.has(to) || using.length === 0) whole = false;
      else for (const u of using) pairs.add(`${u}\n${to}`);
    }
    if (!whole || pairs.size === 0) out.push(edge);
    for (const pair of [...pairs].sort()) {
      const [user, to] = pair.split('\n') as [string, string];
      out.push({ ...edge, from: user, to });
    }
  }
  return out;
}
