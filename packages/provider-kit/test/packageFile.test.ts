// packageFile finds a file a package ships by the package's name, as the calling module resolves it;
// packageVersion, outside a bundle, reads the version from the manifest found the same way.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageDirectory, packageFile, packageVersion } from '@rea/provider-kit';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'rea-package-directory-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package folder at `path` (under the temporary root) whose manifest names `name`, with a dist/index.js. */
function makePackage(path: string, name: string, manifest: object = {}): string {
  const directory = join(root, path);
  mkdirSync(join(directory, 'dist'), { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...manifest }));
  writeFileSync(join(directory, 'dist', 'index.js'), '');
  return directory;
}

describe('packageFile', () => {
  it('should find a file of a package this module depends on, by the package name', () => {
    const manifest = packageFile(import.meta.url, '@rea/evidence', 'package.json');
    expect(manifest).not.toBeNull();
    expect((JSON.parse(readFileSync(manifest!, 'utf8')) as { name: string }).name).toBe('@rea/evidence');
    const built = packageFile(import.meta.url, '@rea/evidence', 'dist/index.js');
    expect(built).toBe(manifest!.replace(/package\.json$/, 'dist/index.js'));
  });

  it('should resolve the package from the module it is given, not from its own', () => {
    // Nothing in the file system's root depends on @rea/evidence.
    expect(packageFile(pathToFileURL('/rea-no-such-module.js').href, '@rea/evidence', 'package.json')).toBeNull();
  });

  it('should answer null for a file the package lacks and for a package that cannot be resolved', () => {
    expect(packageFile(import.meta.url, '@rea/evidence', 'dist/no-such-module.js')).toBeNull();
    expect(packageFile(import.meta.url, '@rea/no-such-package', 'package.json')).toBeNull();
  });
});

describe('packageDirectory', () => {
  it('should find the package a module is in when that is the one named', () => {
    const own = makePackage('self/own', '@x/own', { exports: { '.': './dist/index.js' } });
    expect(packageDirectory(pathToFileURL(join(own, 'dist', 'index.js')).href, '@x/own')).toBe(own);
    expect(packageDirectory(join(own, 'dist', 'index.js'), '@x/own')).toBe(own);
  });

  it('should find a dependency in the nearest node_modules up from the module, skipping node_modules folders', () => {
    const hoisted = makePackage('npm/node_modules/dep', 'dep');
    const app = makePackage('npm/node_modules/app', 'app');
    // From app/dist: app/dist/node_modules, app/node_modules, then npm/node_modules (not node_modules/node_modules).
    expect(packageDirectory(join(app, 'dist', 'index.js'), 'dep')).toBe(hoisted);
    const nested = makePackage('npm/node_modules/app/node_modules/dep', 'dep');
    expect(packageDirectory(join(app, 'dist', 'index.js'), 'dep')).toBe(nested);
    // node_modules/node_modules is no place Node.js looks.
    makePackage('odd/node_modules/node_modules/dep', 'dep');
    const other = makePackage('odd/node_modules/app', 'app');
    expect(packageDirectory(join(other, 'dist', 'index.js'), 'dep')).toBeNull();
  });

  it('should follow links to the real folder, where a linked package finds its own dependencies', () => {
    const real = makePackage('pnpm/node_modules/.pnpm/dep@1.0.0/node_modules/dep', 'dep');
    const app = makePackage('pnpm/app', 'app');
    mkdirSync(join(app, 'node_modules'));
    symlinkSync(real, join(app, 'node_modules', 'dep'), 'dir');
    expect(packageDirectory(join(app, 'dist', 'index.js'), 'dep')).toBe(real);
  });

  it('should answer null when no folder up from the module holds the package', () => {
    const lone = makePackage('lone/app', 'app');
    expect(packageDirectory(join(lone, 'dist', 'index.js'), 'no-such-package-anywhere')).toBeNull();
    // A folder of that name without a manifest is not a package.
    mkdirSync(join(lone, 'node_modules', 'empty'), { recursive: true });
    expect(packageDirectory(join(lone, 'dist', 'index.js'), 'empty')).toBeNull();
  });

  it('should agree with Node.js resolution for the packages this workspace installs', () => {
    const from = join(dirname(createRequire(import.meta.url).resolve('@rea/provider-kit')), 'index.js');
    for (const name of ['@rea/evidence', 'zod', '@rea/provider-kit']) {
      const resolved = realpathSync(dirname(createRequire(from).resolve(`${name}/package.json`)));
      expect(packageDirectory(from, name)).toBe(resolved);
    }
  });
});

describe('packageVersion outside a bundle', () => {
  it("should read the version of the package's installed manifest", () => {
    const manifest = packageFile(import.meta.url, '@rea/evidence', 'package.json')!;
    const stated = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    expect(stated).toMatch(/^\d+\.\d+\.\d+/);
    expect(packageVersion(import.meta.url, '@rea/evidence')).toBe(stated);
  });

  it('should throw when the package cannot be resolved from the given module', () => {
    let code: unknown = null;
    try {
      packageVersion(pathToFileURL('/rea-no-such-module.js').href, '@rea/evidence');
    } catch (error) {
      code = (error as { code?: unknown }).code;
    }
    expect(code).toBe('MODULE_NOT_FOUND');
  });
});
