// Generated inputs of the responsiveness benches: a 10,000-file tree packed as ZIP, an x86-64 shared
// object with 100,000 function symbols, and small Evidence records for bundles.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAnalysisProfile, sealEvidence } from '@rea/evidence';

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

/** `count` small inventory records (five entries each); `salt` makes a set of records of its own. */
export function smallRecords(count, salt = null) {
  return Array.from({ length: count }, (_, i) =>
    sealEvidence({
      operation: 'inspect_artifact',
      subject: { format: 'zip', sha256: 'a'.repeat(64), size: i },
      provider: { id: 'artifact', name: 'Artifact', version: '1' },
      analysis_profile: createAnalysisProfile({ name: 'default', version: '1', settings: {} }),
      parameters: salt === null ? { path: `/tmp/f${i}` } : { path: `/tmp/f${i}`, run: salt },
      normalized_result: { entries: Array.from({ length: 5 }, (_, j) => ({ path: `d/f${i}-${j}`, size: j })) },
      raw_result: null,
      confidence: 'observed',
      limitations: [],
      coverage: { status: 'complete', reasons: [] },
      locations: [],
      evidence_links: [],
    }),
  );
}
