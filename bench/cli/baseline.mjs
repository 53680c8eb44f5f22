// Makes a runnable copy of the current `rea` build outside the workspace, for before/after ratios with
// `node bench/cli/run.mjs --baseline <dir>/dist/bin.cjs`: build the revision to compare against (e.g.
// main), run this, then build the revision under test. The copy holds rea's dist/ and manifest, each
// workspace package's manifest and files beside dist/ (a provider reads its own package.json and
// shipped scripts through its package name), and an absolute link to the Capstone engine package.
// Usage: node bench/cli/baseline.mjs <dir outside packages/, e.g. /tmp/rea-baseline>
import { cpSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = process.argv[2];
if (!target) {
  console.error('usage: node bench/cli/baseline.mjs <directory>');
  process.exit(2);
}
const out = resolve(target);
if (!out.startsWith('/') || out.startsWith(join(root, 'packages'))) {
  console.error('the copy must live outside packages/ (its bundle would be taken for a workspace package)');
  process.exit(2);
}
const rea = join(root, 'packages', 'rea');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(rea, 'dist'), join(out, 'dist'), { recursive: true });
cpSync(join(rea, 'package.json'), join(out, 'package.json'));
const scope = join(rea, 'node_modules', '@rea');
for (const name of readdirSync(scope)) {
  const from = realpathSync(join(scope, name));
  const to = join(out, 'node_modules', '@rea', name);
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (['node_modules', 'src', 'test'].includes(entry)) continue;
    cpSync(join(from, entry), join(to, entry), { recursive: true });
  }
}
const engine = join(root, 'packages', 'providers', 'capstone', 'node_modules', '@alexaltea', 'capstone-js');
if (existsSync(engine)) {
  mkdirSync(join(out, 'node_modules', '@alexaltea'), { recursive: true });
  symlinkSync(realpathSync(engine), join(out, 'node_modules', '@alexaltea', 'capstone-js'));
}
// Builds before the executable became dist/bin.cjs have dist/bin.js.
const entry = ['bin.cjs', 'bin.js'].map((name) => join(out, 'dist', name)).find((path) => existsSync(path));
console.log(`baseline: ${entry ?? join(out, 'dist', 'bin.cjs')}`);
