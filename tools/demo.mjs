// REA's main job on the example that ships in the repository: `rea analyze examples` with the built
// executable. Extra arguments replace the path and options: `npm run demo -- some/file --format json`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './workspace.mjs';

const args = process.argv.slice(2);
const bin = join(repoRoot, 'packages', 'rea', 'dist', 'bin.js');
const result = spawnSync(
  process.execPath,
  [bin, 'analyze', ...(args.length > 0 ? args : [join(repoRoot, 'examples')])],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
