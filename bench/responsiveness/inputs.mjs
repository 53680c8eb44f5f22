// Generated inputs of the cancel benches: a 10,000-file tree packed as ZIP, and an x86-64 shared object
// with 100,000 function symbols.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FILES = 10_000;
export const SYMBOLS = 100_000;

/** Writes the tree, tree.zip and many.so under `inputs`. */
export function buildInputs(inputs) {
  const tree = join(inputs, 'tree');
  for (let i = 0; i < FILES; i += 1) {
    const folder = join(tree, `d${i % 100}`);
    if (i < 100) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.js`), `module.exports = ${i};\n`);
  }
  const zip = join(inputs, 'tree.zip');
  const zipped = spawnSync('zip', ['-q', '-r', zip, '.'], { cwd: tree });
  if (zipped.status !== 0) throw new Error(`zip failed: ${zipped.stderr}`);
  const lines = ['.text'];
  for (let i = 0; i < SYMBOLS; i += 1) lines.push(`.globl f${i}`, `.type f${i},@function`, `f${i}:`, 'ret');
  writeFileSync(join(inputs, 'many.s'), `${lines.join('\n')}\n`);
  const so = join(inputs, 'many.so');
  const built = spawnSync('gcc', ['-shared', '-nostdlib', '-o', so, join(inputs, 'many.s')]);
  if (built.status !== 0) throw new Error(`gcc failed: ${built.stderr}`);
  return { tree, zip, so };
}
