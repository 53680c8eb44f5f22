// The README's transcript of `npm run demo`, kept from going stale: what can change without the demo
// changing (evidence ids, REA's own package versions, where the clone is) is masked, in the README and
// in a real run alike. `node tools/demoTranscript.mjs --write` runs the demo (build first) and writes
// its masked output into the README; packages/rea/test/issue-14-readme-demo.e2e.test.ts compares them.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './workspace.mjs';

const README = join(repoRoot, 'README.md');
const BLOCK = /(What `npm run demo` prints[\s\S]*?```text\n)([\s\S]*?)(```)/;

/** The demo's output with the clone's path, evidence ids and REA's package versions masked. */
export function maskTranscript(text, root) {
  return text
    .split(root)
    .join('<clone>')
    .replace(/\bev_[0-9a-f]{64}\b/g, 'ev_…')
    .replace(/(@rea\/[a-z-]+) \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?/g, '$1 <version>');
}

/** The transcript block of the README. */
export function readmeTranscript(text = readFileSync(README, 'utf8')) {
  const match = BLOCK.exec(text);
  if (!match) throw new Error('README.md has no `npm run demo` transcript block');
  return match[2];
}

if (process.argv[2] === '--write') {
  const run = spawnSync(process.execPath, [join(repoRoot, 'tools', 'demo.mjs')], { cwd: repoRoot, encoding: 'utf8' });
  if (run.status !== 0) {
    console.error(run.stdout + run.stderr);
    process.exit(run.status ?? 1);
  }
  const text = readFileSync(README, 'utf8');
  writeFileSync(
    README,
    text.replace(BLOCK, (_m, head, _body, tail) => `${head}${maskTranscript(run.stdout, repoRoot)}${tail}`),
  );
  console.error('README.md: demo transcript updated');
}
