// Builds every package that has a tsconfig.build.json, dependencies first, into its dist/.
// A package needs nothing but that file (and an exports map pointing into dist/) to take part.
import { rmSync, existsSync, chmodSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { topologicalOrder } from './workspace.mjs';
import { runTsc } from './tsc.mjs';

const only = process.argv.slice(2);
let built = 0;
for (const pkg of topologicalOrder()) {
  if (!existsSync(join(pkg.dir, 'tsconfig.build.json'))) continue;
  if (only.length > 0 && !only.includes(pkg.manifest.name)) continue;
  rmSync(join(pkg.dir, 'dist'), { recursive: true, force: true });
  const status = runTsc(['-p', 'tsconfig.build.json'], pkg.dir);
  if (status !== 0) {
    console.error(`build failed: ${pkg.manifest.name}`);
    process.exit(status);
  }
  // A package may finish its dist/ with scripts/postbuild.mjs (run with the package as working directory).
  if (existsSync(join(pkg.dir, 'scripts', 'postbuild.mjs'))) {
    const post = spawnSync(process.execPath, [join('scripts', 'postbuild.mjs')], { cwd: pkg.dir, stdio: 'inherit' });
    if (post.status !== 0) {
      console.error(`postbuild failed: ${pkg.manifest.name}`);
      process.exit(post.status ?? 1);
    }
  }
  // Make declared bins executable.
  const bin = pkg.manifest.bin;
  for (const file of typeof bin === 'string' ? [bin] : Object.values(bin ?? {})) {
    const path = join(pkg.dir, file);
    if (existsSync(path)) {
      chmodSync(path, 0o755);
      if (!readFileSync(path, 'utf8').startsWith('#!')) console.error(`warning: ${path} has no shebang`);
    }
  }
  built += 1;
}
console.error(`built ${built} package(s)`);
// `rea`'s bundle (dist/mcpStdio.js, dist/mcpCalls.js, dist/cli.js and their chunks) holds a copy of every
// workspace package it uses: after building some of them alone, it still runs their previous build until
// `rea` is built again.
if (only.length > 0 && !only.includes('rea-mcp') && only.some((name) => name.startsWith('@rea/'))) {
  console.error(
    `note: rea's bundle still holds the previous build of ${only.join(', ')}; run \`node tools/build.mjs rea-mcp\` to refresh it`,
  );
}
