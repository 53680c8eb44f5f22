// The README's two commands start here: `npm run demo` and `npm test`. Needs only Node.js (with its
// bundled corepack), npm and git. It enables the pinned pnpm through corepack, installs, builds, and then
// runs the demo or every check and test.
import { spawnSync } from 'node:child_process';
import { repoRoot } from './workspace.mjs';

const env = {
  ...process.env,
  COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
  // Some registries serve pnpm's metadata without the signatures corepack checks; the tarball's
  // integrity hash is still verified by the package manager itself.
  COREPACK_INTEGRITY_KEYS: process.env.COREPACK_INTEGRITY_KEYS ?? '0',
  FORCE_COLOR: process.env.FORCE_COLOR ?? '0',
};

function pnpm(...args) {
  console.error(`\n> pnpm ${args.join(' ')}`);
  const result = spawnSync('corepack', ['pnpm', ...args], { cwd: repoRoot, stdio: 'inherit', env });
  if (result.error) {
    console.error(`could not run corepack: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const step = process.argv[2] ?? 'setup';
pnpm('install', '--frozen-lockfile');
pnpm('run', 'build');
if (step === 'demo') {
  pnpm('run', '-s', 'demo:run', ...process.argv.slice(3));
} else if (step === 'test') {
  pnpm('run', 'lint');
  pnpm('run', 'format:check');
  pnpm('run', 'typecheck');
  pnpm('run', 'generate:check');
  pnpm('run', 'check:pack');
  pnpm('run', 'test:all');
} else if (step !== 'setup') {
  console.error(`unknown step ${step}: use setup, demo or test`);
  process.exit(2);
}
