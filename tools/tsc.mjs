// Runs the native TypeScript compiler (TypeScript 7). The `typescript` package in the workspace is the
// 6.x compiler API that typescript-eslint and attw load; the command-line compiler is the native one.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { repoRoot } from './workspace.mjs';

const require = createRequire(join(repoRoot, 'package.json'));
const tscBin = join(dirname(require.resolve('typescript-native/package.json')), 'bin', 'tsc');

/** Runs tsc with the given arguments in `cwd`; returns the exit status. */
export function runTsc(args, cwd = repoRoot) {
  const result = spawnSync(process.execPath, [tscBin, ...args], { cwd, stdio: 'inherit' });
  return result.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(runTsc(process.argv.slice(2)));
}
