import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';

// `provider.version` in Evidence is the provider package's version. `changeset version` bumps only the
// manifests, so the version must come from the installed manifest, not from a constant in the code.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * Installs a copy of a built workspace package into `<dir>/node_modules` with its manifest's version
 * replaced, its dependencies linked to the workspace's (as a release installed by npm would sit).
 */
function installWithVersion(dir: string, relDir: string, version: string): string {
  const source = join(root, relDir);
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as Manifest;
  const target = join(dir, 'node_modules', ...manifest.name.split('/'));
  mkdirSync(target, { recursive: true });
  cpSync(join(source, 'dist'), join(target, 'dist'), { recursive: true });
  writeFileSync(join(target, 'package.json'), JSON.stringify({ ...manifest, version }, null, 2));
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const link = join(dir, 'node_modules', ...dep.split('/'));
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(source, 'node_modules', ...dep.split('/'))), link, 'dir');
  }
  return manifest.name;
}

function evaluate(dir: string, script: string): unknown {
  const file = join(dir, 'probe.mjs');
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(run.stdout) as unknown;
}

describe('issue 14: provider versions come from the package manifests', () => {
  it('should report the installed @rea/artifact manifest version in its provider and Evidence identity', async () => {
    await withTempDir(async (dir) => {
      installWithVersion(dir, 'packages/artifact', '7.8.9-next.1');
      const reported = evaluate(
        dir,
        `import { ARTIFACT_PACKAGE_VERSION, createArtifactProvider } from '@rea/artifact';
         const provider = createArtifactProvider();
         const probe = await provider.probe({ signal: new AbortController().signal });
         console.log(JSON.stringify({ constant: ARTIFACT_PACKAGE_VERSION, provider: provider.version, probe: probe.version }));`,
      );
      expect(reported).toEqual({ constant: '7.8.9-next.1', provider: '7.8.9-next.1', probe: '7.8.9-next.1' });
    });
  });

  it('should report the installed @rea/provider-capstone manifest version as its provider version', async () => {
    await withTempDir(async (dir) => {
      installWithVersion(dir, 'packages/providers/capstone', '3.2.1');
      const reported = evaluate(
        dir,
        `import { CAPSTONE_PROVIDER_VERSION, createCapstoneProvider } from '@rea/provider-capstone';
         console.log(JSON.stringify({ constant: CAPSTONE_PROVIDER_VERSION, provider: createCapstoneProvider().version }));`,
      );
      expect(reported).toEqual({ constant: '3.2.1', provider: '3.2.1' });
    });
  });
});
