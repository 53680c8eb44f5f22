// Electron roles: the main process script named by the manifest, preload scripts named by
// `webPreferences.preload`, and renderer scripts loaded by the HTML pages windows open (a page itself
// for the scripts written inside it).
import { posix } from 'node:path';
import { resolveFile } from './graph.js';
import { fileNodeId } from './inventory.js';

/** A role with the observation that assigned it. */
export interface RoleFact {
  role: 'main' | 'preload' | 'renderer';
  node_id: string;
  evidence: string;
}

/** What role assignment reads: manifests, per-file preload values and loaded pages, HTML entries. */
export interface RoleInputs {
  manifests: { path: string; main: string | null }[];
  files: { path: string; preloads: string[]; loadedPages: string[] }[];
  html: { node_id: string; path: string; scripts: { node_id: string | null }[] }[];
  /** The paths of the pages that hold inline JavaScript (its facts carry the page's node id). */
  inline: ReadonlySet<string>;
  known: ReadonlySet<string>;
}

function byName(name: string, known: ReadonlySet<string>): string | null {
  const matches = [...known].filter((path) => posix.basename(path) === name);
  return matches.length === 1 ? matches[0]! : null;
}

function locate(from: string, reference: string, known: ReadonlySet<string>): string | null {
  const relative = reference.startsWith('.') ? reference : `./${reference}`;
  return resolveFile(from, relative, known) ?? byName(posix.basename(reference), known);
}

/**
 * Assigns Electron roles, sorted by node id then role. A manifest outside `node_modules` with a `main`
 * names the main script; a `preload` value (its last string literal, as in
 * `path.join(__dirname, 'preload.js')`) is resolved next to the file that sets it, else by a unique
 * file name; an HTML page passed to `loadFile`/`loadURL` makes its scripts renderers, and itself one when
 * it holds inline scripts.
 */
export function assignRoles(inputs: RoleInputs): RoleFact[] {
  const roles = new Map<string, RoleFact>();
  const add = (fact: RoleFact) => roles.set(`${fact.node_id}\u0000${fact.role}`, fact);
  for (const manifest of inputs.manifests) {
    if (manifest.main === null || /(?:^|\/|!\/)node_modules\//.test(manifest.path)) continue;
    const main = locate(manifest.path, manifest.main, inputs.known);
    if (main !== null) add({ role: 'main', node_id: fileNodeId(main), evidence: `"main" of ${manifest.path}` });
  }
  const pages = new Set<string>();
  for (const file of inputs.files) {
    for (const preload of file.preloads) {
      const target = locate(file.path, preload, inputs.known);
      if (target !== null)
        add({ role: 'preload', node_id: fileNodeId(target), evidence: `webPreferences.preload in ${file.path}` });
    }
    for (const page of file.loadedPages) {
      const name = page.replace(/^file:\/\//, '').split(/[?#]/)[0]!;
      const target = locate(file.path, name, inputs.known);
      if (target !== null) pages.add(target);
    }
  }
  for (const html of inputs.html) {
    if (!pages.has(html.path)) continue;
    if (inputs.inline.has(html.path))
      add({
        role: 'renderer',
        node_id: html.node_id,
        evidence: `inline <script> of ${html.path}, loaded into a window`,
      });
    for (const script of html.scripts) {
      if (script.node_id !== null)
        add({ role: 'renderer', node_id: script.node_id, evidence: `<script> of ${html.path}, loaded into a window` });
    }
  }
  return [...roles.values()].sort((a, b) =>
    a.node_id === b.node_id ? (a.role < b.role ? -1 : 1) : a.node_id < b.node_id ? -1 : 1,
  );
}
