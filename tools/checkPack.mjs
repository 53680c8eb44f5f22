// Packs every public package with pnpm (workspace: and catalog: ranges rewritten as published), then
// checks each tarball with `publint --strict` and `attw` (ESM-only profile). Run after `npm run build`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPackages, repoRoot } from './workspace.mjs';

const bin = (name) => join(repoRoot, 'node_modules', '.bin', name);
const run = (cmd, args, cwd) => spawnSync(cmd, args, { cwd, encoding: 'utf8' });

const out = mkdtempSync(join(tmpdir(), 'rea-pack-'));
let failures = 0;
let checked = 0;
try {
  for (const pkg of listPackages()) {
    if (pkg.manifest.private) continue;
    const dest = join(out, pkg.manifest.name.replace(/[@/]/g, '_'));
    const packed = run('corepack', ['pnpm', 'pack', '--pack-destination', dest], pkg.dir);
    if (packed.status !== 0) {
      console.error(`✗ ${pkg.manifest.name}: pnpm pack failed\n${packed.stderr}`);
      failures += 1;
      continue;
    }
    const tarball = join(
      dest,
      readdirSync(dest).find((f) => f.endsWith('.tgz')),
    );
    const lint = run(bin('publint'), ['run', tarball, '--strict'], pkg.dir);
    const types = run(
      bin('attw'),
      [tarball, '--profile', 'esm-only', '--no-color', '--format', 'table-flipped'],
      pkg.dir,
    );
    const ok = lint.status === 0 && types.status === 0;
    checked += 1;
    console.error(`${ok ? '✓' : '✗'} ${pkg.manifest.name}`);
    if (lint.status !== 0) console.error(lint.stdout + lint.stderr);
    if (types.status !== 0) console.error(types.stdout + types.stderr);
    if (!ok) failures += 1;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.error(`pack check: ${checked} package(s), ${failures} failing`);
process.exit(failures === 0 ? 0 : 1);
