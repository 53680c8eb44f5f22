// packageFile finds a file a package ships by the package's name, as the calling module resolves it;
// packageVersion, outside a bundle, reads the version from the manifest found the same way.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { packageFile, packageVersion } from '@rea/provider-kit';

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
