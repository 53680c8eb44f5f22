// Packs every public package with pnpm (workspace: and catalog: ranges rewritten as published), then
// checks each tarball with `publint --strict` and `attw` (ESM-only profile), and that it carries the
// repository's LICENSE. Run after `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTarball } from './tarball.mjs';
import { listPackages, repoRoot } from './workspace.mjs';

const bin = (name) => join(repoRoot, 'node_modules', '.bin', name);
const run = (cmd, args, cwd) => spawnSync(cmd, args, { cwd, encoding: 'utf8' });

const licenseFile = join(repoRoot, 'LICENSE');
if (!existsSync(licenseFile)) {
  console.error('✗ the repository has no LICENSE file: every package is packed with it');
  process.exit(1);
}
const license = readFileSync(licenseFile);

/** Why the tarball's LICENSE is not the repository's, or null when it is. */
function licenseProblem(tarball) {
  const packed = readTarball(tarball).get('package/LICENSE');
  if (packed === undefined) return 'the tarball has no LICENSE (add one beside package.json)';
  return packed.equals(license) ? null : "the tarball's LICENSE differs from the repository's LICENSE";
}

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
    const licensing = licenseProblem(tarball);
    const ok = lint.status === 0 && types.status === 0 && licensing === null;
    checked += 1;
    console.error(`${ok ? '✓' : '✗'} ${pkg.manifest.name}`);
    if (lint.status !== 0) console.error(lint.stdout + lint.stderr);
    if (types.status !== 0) console.error(types.stdout + types.stderr);
    if (licensing !== null) console.error(`  ${licensing}`);
    if (!ok) failures += 1;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.error(`pack check: ${checked} package(s), ${failures} failing`);
process.exit(failures === 0 ? 0 : 1);
