// Runs every benchmark: each bench/<area>/run.mjs, one after the other, in its own Node process.
// Add a benchmark by adding a folder with a run.mjs; nothing here needs to change.
// Usage: node bench/run.mjs [area ...]   (npm run bench)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const areas = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'results')
  .map((entry) => entry.name)
  .filter((name) => existsSync(join(here, name, 'run.mjs')))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

const failed = [];
for (const area of areas) {
  console.log(`\n=== bench/${area} ===`);
  const { status, signal } = spawnSync(process.execPath, [join(here, area, 'run.mjs')], { stdio: 'inherit' });
  if (status !== 0) failed.push(`${area} (${signal ?? `exit ${status}`})`);
}
if (areas.length === 0) console.log('no benchmarks found');
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
