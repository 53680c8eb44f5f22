// What Node.js itself says a module exports, as the reference the analysis's export shapes are checked
// against: the module is loaded by a fresh Node.js process.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** One export as Node.js sees it: class, function (with its length) or value. */
export interface Observed {
  name: string;
  kind: 'function' | 'class' | 'value';
  length: number | null;
}

/**
 * What Node.js lists for the module at `file`: `Object.keys` of what `require` returns (of the module
 * namespace for a `.mjs` file), in its order, with each value's kind (`typeof`, a class told by its
 * source text) and a function's `length`.
 */
export function nodeExports(file: string): Observed[] {
  const script = `
    const ns = ${file.endsWith('.mjs') ? `await import(${JSON.stringify(pathToFileURL(file).href)})` : `(await import('node:module')).createRequire(${JSON.stringify(file)})(${JSON.stringify(file)})`};
    const out = Object.keys(ns).map((name) => {
      const v = ns[name];
      const kind = typeof v !== 'function' ? 'value' : /^class\\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'function';
      return { name, kind, length: kind === 'function' ? v.length : null };
    });
    console.log(JSON.stringify(out));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as Observed[];
}
