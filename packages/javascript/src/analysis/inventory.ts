// Classifying the input's files and reading the small structured ones: package manifests and the
// scripts and stylesheets an HTML entry loads.
import { posix } from 'node:path';
import type { ArtifactEntry } from '@rea/artifact';
import type { Asset } from '../schemas.js';
import { resolveWithin } from './sourceMaps.js';

/** The node id of the file at logical `path`. Stable: it depends on the path only. */
export function fileNodeId(path: string): string {
  return `file:${path}`;
}

/** The kind of asset a logical path is, or null for files the analysis does not classify. */
export function assetKind(path: string): Asset['kind'] | null {
  const name = posix.basename(path.split('!/').at(-1)!).toLowerCase();
  if (name === 'package.json') return 'manifest';
  if (/\.(?:[cm]?js)$/.test(name)) return 'javascript';
  if (/\.html?$/.test(name)) return 'html';
  if (name.endsWith('.css')) return 'css';
  if (name.endsWith('.map')) return 'source-map';
  if (name.endsWith('.wasm')) return 'wasm';
  if (name.endsWith('.node')) return 'native-addon';
  return null;
}

/** The classified assets of an inventory, in inventory order (files under node_modules included). */
export function assetsOf(entries: readonly ArtifactEntry[]): Asset[] {
  const assets: Asset[] = [];
  // The archives the inventory opened: an `x.asar.unpacked/` folder beside one holds files the archive
  // lists itself (as `x.asar!/…`, unpacked), so they are its assets and are not listed twice.
  const archives = new Set<string>();
  for (const entry of entries) {
    for (let at = entry.path.indexOf('!/'); at >= 0; at = entry.path.indexOf('!/', at + 2)) {
      archives.add(entry.path.slice(0, at));
    }
  }
  const companion = (path: string) => {
    const at = path.indexOf('.asar.unpacked/');
    return at >= 0 && archives.has(path.slice(0, at + 5));
  };
  for (const entry of entries) {
    if (entry.kind !== 'file' || companion(entry.path)) continue;
    const kind = assetKind(entry.path);
    if (kind === null) continue;
    assets.push({
      node_id: fileNodeId(entry.path),
      path: entry.path,
      kind,
      size: entry.size,
      sha256: entry.sha256,
      unpacked: entry.unpacked,
    });
  }
  return assets;
}

/** A package manifest's identity, entry and dependencies; null when it is not a JSON object. */
export function readManifest(path: string, text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const text_ = (key: string) => (typeof record[key] === 'string' ? (record[key] as string) : null);
  const dependencies: Record<string, string> = {};
  for (const field of ['dependencies', 'optionalDependencies', 'devDependencies']) {
    const deps = record[field];
    if (deps === null || typeof deps !== 'object' || Array.isArray(deps)) continue;
    for (const [name, range] of Object.entries(deps as Record<string, unknown>)) {
      if (typeof range === 'string' && !(name in dependencies)) dependencies[name] = range;
    }
  }
  return {
    node_id: fileNodeId(path),
    path,
    name: text_('name'),
    version: text_('version'),
    main: text_('main'),
    dependencies,
  };
}

const SCRIPT = /<script\b([^>]*)>/gi;
const INLINE = /<script\b([^>]*)>([^]*?)<\/script\s*>/gi;
/** The `type` values of a script element that hold JavaScript (none, or a JavaScript MIME type). */
const JAVASCRIPT_TYPE = /^(?:module|(?:text|application)\/(?:x-)?(?:java|ecma)script)$/i;

/** A script written inside an HTML page, with where its text starts in the page. */
export interface InlineScript {
  text: string;
  /** 1-based line and 0-based column of its first character in the page. */
  line: number;
  column: number;
  module: boolean;
}

/**
 * The JavaScript written inside `<script>` elements without `src` of the HTML page `text` (other types,
 * JSON or templates, are skipped), each with where it starts in the page.
 */
export function inlineScripts(text: string): InlineScript[] {
  const scripts: InlineScript[] = [];
  for (const match of text.matchAll(INLINE)) {
    const attributes = match[1]!;
    if (attribute(attributes, 'src') !== null) continue;
    const typeMatch = attribute(attributes, 'type');
    const type = typeMatch === null ? '' : (typeMatch[1] ?? typeMatch[2] ?? typeMatch[3]!).trim();
    if (type !== '' && !JAVASCRIPT_TYPE.test(type)) continue;
    // The opening tag ends at its first `>` (its attributes hold none).
    const start = match.index + match[0].indexOf('>') + 1;
    const before = text.slice(0, start);
    const lineStart = before.lastIndexOf('\n') + 1;
    let line = 1;
    for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line += 1;
    scripts.push({ text: match[2]!, line, column: start - lineStart, module: /^module$/i.test(type) });
  }
  return scripts;
}
const LINK = /<link\b([^>]*)>/gi;
const attribute = (attributes: string, name: string) =>
  new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attributes);

/**
 * The scripts (`<script src>`, and the count of inline ones) and stylesheets (`<link rel=stylesheet>`)
 * of the HTML entry at `path`, each resolved to a node id when it names a file of `known`.
 */
export function readHtml(path: string, text: string, known: ReadonlySet<string>) {
  const resolve = (reference: string) => {
    const target = resolveWithin(path, reference.split(/[?#]/)[0]!);
    return target !== null && known.has(target) ? fileNodeId(target) : null;
  };
  const scripts: { src: string; node_id: string | null }[] = [];
  let inline = 0;
  for (const match of text.matchAll(SCRIPT)) {
    const src = attribute(match[1]!, 'src');
    if (src === null) inline += 1;
    else {
      const value = src[1] ?? src[2] ?? src[3]!;
      scripts.push({ src: value, node_id: resolve(value) });
    }
  }
  const stylesheets: { href: string; node_id: string | null }[] = [];
  for (const match of text.matchAll(LINK)) {
    const rel = attribute(match[1]!, 'rel');
    const href = attribute(match[1]!, 'href');
    if (rel === null || href === null || !/stylesheet/i.test(rel[1] ?? rel[2] ?? rel[3]!)) continue;
    const value = href[1] ?? href[2] ?? href[3]!;
    stylesheets.push({ href: value, node_id: resolve(value) });
  }
  return { node_id: fileNodeId(path), path, scripts, inline_script_count: inline, stylesheets };
}
