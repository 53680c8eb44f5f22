import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The README's commands (`npm run demo`, `npm test`) need only Node.js, npm and git: pnpm runs through
// corepack (`corepack pnpm …`), never as a `pnpm` binary on PATH, which a fresh machine does not have.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Every package.json of the repository outside node_modules and build output. */
function manifests(dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', '.tmp'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...manifests(path));
    else if (entry.name === 'package.json') out.push(path);
  }
  return out;
}

/** The commands of a shell command line that start with `pnpm` or `pnpx` (after any VAR=value). */
function barePnpmCommands(line: string): string[] {
  return line
    .split(/&&|\|\||[;|\n]|\$\(|`/)
    .map((part) => part.trim().replace(/^(\w+=\S*\s+)+/, ''))
    .filter((command) => /^(pnpm|pnpx)(\s|$)/.test(command));
}

/** Calls in a script that start a bare `pnpm`/`pnpx` process (`spawn('pnpm', …)`, `execSync('pnpm …')`). */
function barePnpmCalls(text: string): string[] {
  return [
    ...text.matchAll(/\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync)\(\s*(['"`])(pnpm|pnpx)\b[^'"`]*\1/g),
  ].map((m) => m[0]);
}

function scripts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...scripts(path));
    else if (/\.(mjs|cjs|js|ts|sh)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('issue 14: no package script relies on a pnpm binary on PATH', () => {
  it('should recognise a bare pnpm in a script and in a spawn call', () => {
    expect(barePnpmCommands('pnpm run -s jest --selectProjects e2e')).toEqual([
      'pnpm run -s jest --selectProjects e2e',
    ]);
    expect(barePnpmCommands('node a.mjs && CI=1 pnpx tsc')).toEqual(['pnpx tsc']);
    expect(barePnpmCommands('corepack pnpm run build && node tools/build.mjs')).toEqual([]);
    expect(barePnpmCalls("spawnSync('pnpm', ['pack'])")).toHaveLength(1);
    expect(barePnpmCalls("run('corepack', ['pnpm', 'pack'])")).toEqual([]);
  });

  it('should call no bare pnpm from any package.json script', () => {
    const found = manifests().flatMap((file) => {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> };
      return Object.entries(manifest.scripts ?? {}).flatMap(([name, line]) =>
        barePnpmCommands(line).map((command) => `${relative(root, file)} scripts.${name}: ${command}`),
      );
    });
    expect(manifests().length).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });

  it('should start no bare pnpm from the tools/, bench/ or .ci scripts', () => {
    const files = [...scripts(join(root, 'tools')), ...scripts(join(root, 'bench')), join(root, '.ci', 'run')];
    const found = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const calls = barePnpmCalls(text);
      // Shell scripts: every line is a command line.
      if (!/\.(mjs|cjs|js|ts)$/.test(file))
        calls.push(
          ...text
            .split('\n')
            .filter((l) => !/^\s*#/.test(l))
            .flatMap(barePnpmCommands),
        );
      return calls.map((call) => `${relative(root, file)}: ${call}`);
    });
    expect(files.length).toBeGreaterThan(5);
    expect(found).toEqual([]);
  });
});
