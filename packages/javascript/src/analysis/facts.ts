// What one parsed file says: its imports and exports, string literals, URLs, IPC channels, dynamic
// code sites, Node built-ins and the Electron window options it sets. One pass over the AST.
import { builtinModules } from 'node:module';
import type { EsNode } from '../engine/parser.js';
import type { ExportShape } from '../schemas.js';
import { FlagSites } from './flags.js';
import type { FlagSite } from './flags.js';
import { MAY_BIND, moduleBindings } from './bindings.js';
import { memberPath, stringValue, walk } from './walk.js';

import { MAX_STRINGS_PER_FILE, MAX_STRING_LENGTH } from '../limits.js';

export { MAX_STRINGS_PER_FILE, MAX_STRING_LENGTH };

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith('_')));
const URL_PATTERN = /\b(?:https?|wss?|ftp|file):\/\/[^\s"'`<>()\\]+/g;
const IPC =
  /(?:^|\.)(ipcMain\.(?:handle|handleOnce|on|once|removeHandler)|ipcRenderer\.(?:invoke|send|sendSync|sendToHost|on|once|postMessage)|contextBridge\.exposeInMainWorld|contextBridge\.exposeInIsolatedWorld|webContents\.send)$/;

/** The kinds of side effect a call site can have, observed statically. */
export type EffectCategory = 'network' | 'filesystem' | 'process' | 'dom';

const FS_BARE =
  /^(?:(?:read|write|append)File(?:Sync)?|(?:unlink|mkdir|rmdir|rm|rename|copyFile|readdir|symlink|chmod|chown|truncate|mkdtemp|cp)(?:Sync)?|create(?:Read|Write)Stream)$/;
const EFFECTS: [EffectCategory, RegExp][] = [
  [
    'network',
    /^(?:(?:window\.|globalThis\.|self\.)?(?:fetch|XMLHttpRequest|WebSocket|EventSource)|navigator\.sendBeacon|(?:https?|http2|net|tls|dgram|dns)\.\w+|net\.request|session\.\w+\.(?:fetch|webRequest\.\w+))$/,
  ],
  ['filesystem', /^(?:(?:fs|fsp|fsPromises|fs\.promises|original-fs)\.\w+|shell\.(?:openPath|trashItem))$/],
  [
    'process',
    /^(?:(?:child_process|cp|childProcess)\.\w+|(?:spawn|exec|execFile|fork)(?:Sync)?|process\.(?:exit|kill|abort|chdir|dlopen)|shell\.openExternal|utilityProcess\.fork|app\.(?:relaunch|exit|quit))$/,
  ],
  [
    'dom',
    /^(?:(?:window\.)?document\.\w+(?:\.\w+)*|\w+(?:\.\w+)*\.(?:insertAdjacentHTML|appendChild|replaceChildren|setAttribute)|(?:window\.)?localStorage\.\w+)$/,
  ],
];

/** The side-effect category of a called name (`fetch`, `fs.writeFile`, `child_process.spawn`, …), or null. */
export function effectOf(name: string): EffectCategory | null {
  if (FS_BARE.test(name)) return 'filesystem';
  for (const [category, pattern] of EFFECTS) if (pattern.test(name)) return category;
  return null;
}

/** A position in the file: 1-based line, 0-based column, and the offset from the start. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** Everything {@link collectFacts} observed in one file. */
export interface FileFacts {
  imports: { specifier: string; kind: 'require' | 'import' | 'dynamic-import' | 'export-from'; at: Position }[];
  exports: ExportShape[];
  /** Where each export of `exports` was observed (same order), to place it in a bundled module. */
  exportOffsets: number[];
  strings: { value: string; truncated: boolean; at: Position }[];
  stringTotal: number;
  urls: { url: string; host: string | null; at: Position }[];
  ipc: { api: string; channel: string | null; at: Position }[];
  dynamicCode: { kind: 'eval' | 'function-constructor' | 'string-timer' | 'vm'; at: Position }[];
  effects: { category: EffectCategory; api: string; at: Position }[];
  builtins: string[];
  usesElectron: boolean;
  preloads: string[];
  loadedPages: string[];
  /** Feature-flag checks and environment flags, in source order. */
  flags: FlagSite[];
  /** Where electron or its IPC objects are passed on, stored or reassigned: what follows is not tracked. */
  untracked: Position[];
}

function at(node: EsNode): Position {
  return { line: node.loc?.start.line ?? 1, column: node.loc?.start.column ?? 0, offset: node.start ?? 0 };
}

/** The Node built-in a specifier names (without `node:`), or null. */
export function builtinOf(specifier: string): string | null {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  const base = name.split('/')[0]!;
  return BUILTINS.has(name) || (specifier.startsWith('node:') && BUILTINS.has(base)) ? name : null;
}

function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname;
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

/** The export shape of `value` exported as `name`: function (with arity), class, value or unknown. */
export function shapeOf(name: string, system: 'esm' | 'commonjs', value: EsNode | null | undefined): ExportShape {
  if (!value) return { name, system, value_kind: 'unknown', arity: null };
  if (/^(?:Function|ArrowFunction)(?:Expression|Declaration)$/.test(value.type)) {
    return { name, system, value_kind: 'function', arity: (value.params as unknown[]).length };
  }
  if (value.type === 'ClassDeclaration' || value.type === 'ClassExpression') {
    return { name, system, value_kind: 'class', arity: null };
  }
  if (value.type === 'Identifier') return { name, system, value_kind: 'unknown', arity: null };
  return { name, system, value_kind: 'value', arity: null };
}

function esmExports(node: EsNode, out: ExportShape[]): void {
  if (node.type === 'ExportDefaultDeclaration') {
    out.push(shapeOf('default', 'esm', node.declaration as EsNode));
  } else if (node.type === 'ExportAllDeclaration') {
    const exported = node.exported as EsNode | null;
    out.push({
      name: exported ? String(exported.name ?? exported.value) : '*',
      system: 'esm',
      value_kind: 'reexport',
      arity: null,
    });
  } else if (node.type === 'ExportNamedDeclaration') {
    const declaration = node.declaration as EsNode | null;
    if (declaration?.type === 'VariableDeclaration') {
      for (const d of declaration.declarations as EsNode[]) {
        const id = d.id as EsNode;
        if (id.type === 'Identifier') out.push(shapeOf(id.name as string, 'esm', d.init as EsNode | null));
      }
    } else if (declaration) {
      out.push(shapeOf(String((declaration.id as EsNode | null)?.name ?? 'default'), 'esm', declaration));
    }
    for (const s of (node.specifiers as EsNode[]) ?? []) {
      const exported = s.exported as EsNode;
      const name = String(exported.name ?? exported.value);
      out.push({ name, system: 'esm', value_kind: node.source ? 'reexport' : 'unknown', arity: null });
    }
  }
}

/**
 * The exports bundlers define with getters: webpack's `__webpack_require__.d(exports, { name: () => x })`
 * and esbuild's `__export(target, { name: () => x })`.
 */
function bundlerExports(node: EsNode, out: ExportShape[]): void {
  if (node.type !== 'CallExpression') return;
  const name = memberPath(node.callee);
  const args = node.arguments as EsNode[];
  if ((name !== '__webpack_require__.d' && name !== '__export') || args[1]?.type !== 'ObjectExpression') return;
  for (const p of args[1].properties as EsNode[]) {
    if (p.type !== 'Property' || p.computed) continue;
    const key = p.key as EsNode;
    const getter = p.value as EsNode;
    if (getter.type !== 'ArrowFunctionExpression' && getter.type !== 'FunctionExpression') continue;
    out.push({ name: String(key.name ?? key.value), system: 'esm', value_kind: 'unknown', arity: null });
  }
}

function commonJsExport(node: EsNode, out: ExportShape[]): void {
  const target = memberPath(node.left);
  if (target === null) return;
  const right = node.right as EsNode;
  // esbuild renames a wrapped module's parameters module2, exports2, …
  if (/^module\d*\.exports$/.test(target)) {
    if (right.type === 'ObjectExpression') {
      for (const p of right.properties as EsNode[]) {
        if (p.type !== 'Property') continue;
        const key = p.key as EsNode;
        const name = p.computed ? stringValue(key) : String(key.name ?? key.value);
        if (name !== null) out.push(shapeOf(name, 'commonjs', p.value as EsNode));
      }
    } else {
      out.push(shapeOf('module.exports', 'commonjs', right));
    }
    return;
  }
  const match = /^(?:module\d*\.exports|exports\d*)\.([^.]+)$/.exec(target);
  if (match) out.push(shapeOf(match[1]!, 'commonjs', right));
}

/**
 * One pass over `program`: imports (require calls, import declarations, dynamic imports, re-exports),
 * ESM and CommonJS exports with value kind and arity, string literals (at most
 * {@link MAX_STRINGS_PER_FILE}, each cut at {@link MAX_STRING_LENGTH}), URLs and hosts, Electron IPC
 * sites, eval/Function/string-timer/vm sites, Node built-ins, `webPreferences.preload` values and
 * pages loaded into windows, feature-flag sites (flags.ts). `every` is called at bounded intervals
 * (cancellation).
 */
export function collectFacts(program: EsNode, every?: () => void, text?: string): FileFacts {
  const facts: FileFacts = {
    imports: [],
    exports: [],
    exportOffsets: [],
    strings: [],
    stringTotal: 0,
    urls: [],
    ipc: [],
    dynamicCode: [],
    effects: [],
    builtins: [],
    usesElectron: false,
    preloads: [],
    loadedPages: [],
    flags: [],
    untracked: [],
  };
  // What calls reach through bindings of electron and Node's modules (renamed by minifiers).
  const bindings =
    text === undefined || MAY_BIND.test(text) ? moduleBindings(program, every) : { calls: new Map(), untracked: [] };
  facts.untracked = bindings.untracked.map(at);
  const flags = new FlagSites();
  const builtins = new Set<string>();
  const addImport = (specifier: string, kind: FileFacts['imports'][number]['kind'], node: EsNode) => {
    facts.imports.push({ specifier, kind, at: at(node) });
    flags.imported(specifier);
    const builtin = builtinOf(specifier);
    if (builtin !== null) builtins.add(builtin);
    if (specifier === 'electron' || specifier.startsWith('electron/')) facts.usesElectron = true;
  };
  // A top-level `module.exports = …` replaces the exported object: what top-level `exports.x = …` and
  // earlier reassignments put on it is no longer exported, and a later top-level `exports.x = …` writes
  // to the old object (unless `exports = module.exports = …` points `exports` at the new one). Only
  // top-level statements are read so: in a function (a bundled module's factory, whose `exports` is a
  // parameter of its own) or a condition, which assignment runs is not known statically.
  const topAssignments = new Set<EsNode>();
  for (const statement of (program.body as EsNode[] | undefined) ?? []) {
    let expression = statement.type === 'ExpressionStatement' ? (statement.expression as EsNode) : null;
    for (; expression?.type === 'AssignmentExpression'; expression = expression.right as EsNode)
      topAssignments.add(expression);
  }
  const topOffsets = new Set([...topAssignments].map((node) => node.start ?? -1));
  const rebindsExports = new Set<EsNode>();
  let exportsDetached = false;
  const replaceCommonJs = (node: EsNode): void => {
    for (let i = facts.exports.length - 1; i >= 0; i -= 1) {
      if (facts.exports[i]!.system !== 'commonjs' || !topOffsets.has(facts.exportOffsets[i]!)) continue;
      facts.exports.splice(i, 1);
      facts.exportOffsets.splice(i, 1);
    }
    exportsDetached = !rebindsExports.has(node);
  };
  const commonJs = (node: EsNode): void => {
    const target = memberPath(node.left);
    if (target !== null && topAssignments.has(node)) {
      if (/^module\d*\.exports$/.test(target)) replaceCommonJs(node);
      else if (
        /^exports\d*$/.test(target) &&
        /^module\d*\.exports$/.test(memberPath((node.right as EsNode).left) ?? '')
      )
        rebindsExports.add(node.right as EsNode);
      else if (exportsDetached && /^exports\d*\./.test(target)) return;
    }
    exported(node, commonJsExport);
  };
  const exported = (node: EsNode, collect: (node: EsNode, out: ExportShape[]) => void) => {
    const before = facts.exports.length;
    collect(node, facts.exports);
    for (let i = before; i < facts.exports.length; i += 1) facts.exportOffsets.push(node.start ?? 0);
  };
  walk(
    program,
    (node) => {
      switch (node.type) {
        case 'ImportDeclaration':
          addImport(String((node.source as EsNode).value), 'import', node);
          break;
        case 'ExportAllDeclaration':
        case 'ExportNamedDeclaration':
          if (node.source) addImport(String((node.source as EsNode).value), 'export-from', node);
          exported(node, esmExports);
          break;
        case 'ExportDefaultDeclaration':
          exported(node, esmExports);
          break;
        case 'ImportExpression': {
          const specifier = stringValue(node.source);
          if (specifier !== null) addImport(specifier, 'dynamic-import', node);
          break;
        }
        case 'AssignmentExpression': {
          commonJs(node);
          const target = memberPath(node.left);
          if (target !== null && /\.(?:innerHTML|outerHTML)$/.test(target)) {
            facts.effects.push({ category: 'dom', api: target.slice(target.lastIndexOf('.') + 1), at: at(node) });
          }
          break;
        }
        case 'MemberExpression':
          flags.member(node, at(node));
          break;
        case 'NewExpression':
        case 'CallExpression':
          if (node.type === 'CallExpression') flags.call(node, at(node));
          call(node, facts, addImport, bindings.calls.get(node) ?? null);
          exported(node, bundlerExports);
          break;
        case 'Property': {
          const key = node.key as EsNode;
          if (!node.computed && (key.name === 'preload' || key.value === 'preload')) {
            const value = lastString(node.value as EsNode);
            if (value !== null) facts.preloads.push(value);
          }
          break;
        }
        case 'Literal':
        case 'TemplateLiteral': {
          const value = stringValue(node);
          if (value !== null && value.length > 0) literal(value, node, facts);
          else if (value === null && node.type === 'TemplateLiteral') templateUrls(node, facts);
          break;
        }
        default:
          break;
      }
      return true;
    },
    every,
  );
  facts.builtins = [...builtins].sort();
  facts.flags = flags.finish();
  return facts;
}

function literal(value: string, node: EsNode, facts: FileFacts): void {
  facts.stringTotal += 1;
  if (facts.strings.length < MAX_STRINGS_PER_FILE) {
    const truncated = value.length > MAX_STRING_LENGTH;
    facts.strings.push({ value: truncated ? value.slice(0, MAX_STRING_LENGTH) : value, truncated, at: at(node) });
  }
  if (value.includes('://')) {
    for (const match of value.slice(0, 64 * 1024).matchAll(URL_PATTERN)) {
      facts.urls.push({ url: match[0], host: hostOf(match[0]), at: at(node) });
      if (facts.urls.length >= MAX_STRINGS_PER_FILE) break;
    }
  }
}

/** What a template's substitutions are written as in the URLs found in it. */
const SUBSTITUTION = '${…}';

/**
 * The URLs of a template with substitutions (`https://api.example.com/v1/${id}`), each substitution
 * written as {@link SUBSTITUTION}; the host only when the static text holds all of it.
 */
function templateUrls(node: EsNode, facts: FileFacts): void {
  const quasis = node.quasis as { value: { cooked: string | null } }[];
  if (quasis.some((q) => q.value.cooked === null)) return;
  const text = quasis.map((q) => q.value.cooked!).join(SUBSTITUTION);
  if (!text.includes('://')) return;
  for (const match of text.slice(0, 64 * 1024).matchAll(URL_PATTERN)) {
    const url = match[0];
    const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
    const host = authority.includes(SUBSTITUTION)
      ? null
      : hostOf(url.slice(0, url.indexOf('://') + 3 + authority.length));
    facts.urls.push({ url, host, at: at(node) });
    if (facts.urls.length >= MAX_STRINGS_PER_FILE) break;
  }
}

/** The last string literal among a call's arguments (`path.join(__dirname, 'preload.js')`), or the value itself. */
function lastString(node: EsNode): string | null {
  const direct = stringValue(node);
  if (direct !== null) return direct;
  if (node.type === 'CallExpression') {
    const args = node.arguments as EsNode[];
    for (let i = args.length - 1; i >= 0; i -= 1) {
      const value = stringValue(args[i]);
      if (value !== null) return value;
    }
  }
  return null;
}

function call(
  node: EsNode,
  facts: FileFacts,
  addImport: (s: string, k: 'require', n: EsNode) => void,
  bound: string | null,
): void {
  const callee = node.callee as EsNode;
  const args = node.arguments as EsNode[];
  // What the callee is bound to (`o.handle` with `{ipcMain: o} = require("electron")`), else its spelling.
  const name = bound ?? memberPath(callee);
  if (name === null) return;
  if (node.type === 'CallExpression' && name === 'require' && args.length === 1) {
    const specifier = stringValue(args[0]);
    if (specifier !== null) addImport(specifier, 'require', node);
    return;
  }
  if (name === 'eval' && node.type === 'CallExpression') facts.dynamicCode.push({ kind: 'eval', at: at(node) });
  else if (name === 'Function' || name === 'window.Function' || name === 'globalThis.Function') {
    facts.dynamicCode.push({ kind: 'function-constructor', at: at(node) });
  } else if (/(?:^|\.)set(?:Timeout|Interval)$/.test(name) && stringValue(args[0]) !== null) {
    facts.dynamicCode.push({ kind: 'string-timer', at: at(node) });
  } else if (
    /(?:^|\.)(?:runInThisContext|runInNewContext|runInContext|compileFunction|Script)$/.test(name) &&
    /(?:^|\.)vm\./.test(name)
  ) {
    facts.dynamicCode.push({ kind: 'vm', at: at(node) });
  }
  const category = effectOf(name);
  if (category !== null) facts.effects.push({ category, api: name, at: at(node) });
  const ipc = IPC.exec(name);
  if (ipc) facts.ipc.push({ api: ipc[1]!, channel: stringValue(args[0]), at: at(node) });
  if (/(?:^|\.)(?:loadFile|loadURL)$/.test(name)) {
    const page = stringValue(args[0]) ?? (args[0] ? lastString(args[0]) : null);
    if (page !== null) facts.loadedPages.push(page);
  }
}
