// Issue 22: rea's bundles state the versions of the workspace packages they contain, so that a package's
// version (the provider version in its Evidence) costs no resolution and no manifest read at run time.
// Checked against the manifests themselves, on a bundle made here with rea's own options, and on the build.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions, OutputFile } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const packages = resolve(here, '..', '..');
const { BUNDLE, workspaceVersions } = (await import(
  pathToFileURL(resolve(here, '..', 'scripts', 'bundleOptions.mjs')).href
)) as { BUNDLE: BuildOptions; workspaceVersions: () => Record<string, string> };

/** Every workspace manifest's name and version, read here (not through bundleOptions). */
function manifests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const parent of [packages, join(packages, 'providers')]) {
    for (const name of readdirSync(parent)) {
      const path = join(parent, name, 'package.json');
      if (!existsSync(path)) continue;
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as { name: string; version: string };
      out[manifest.name] = manifest.version;
    }
  }
  return out;
}

const work = mkdtempSync(join(tmpdir(), 'rea-bundled-versions-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the versions rea bundles', () => {
  it('should be every workspace package with the version its manifest states', () => {
    const expected = manifests();
    expect(Object.keys(expected)).toEqual(
      expect.arrayContaining(['@rea/artifact', '@rea/provider-capstone', '@rea/provider-ghidra', 'rea-mcp']),
    );
    expect(workspaceVersions()).toEqual(expected);
  });

  it('should answer packageVersion in a bundle where no manifest can be resolved', async () => {
    // A bundle of packageVersion alone, written outside any node_modules: nothing named @rea/* resolves
    // from it, so an answer can only come from what the bundle states.
    const entry = join(work, 'entry.mjs');
    const helper = pathToFileURL(join(packages, 'provider-kit', 'dist', 'packageFile.js')).href;
    writeFileSync(
      entry,
      `import { packageVersion } from ${JSON.stringify(fileURLToPath(helper))};
const attempt = (name) => { try { return packageVersion(import.meta.url, name); } catch (error) { return error.code; } };
console.log(JSON.stringify({ artifact: attempt('@rea/artifact'), capstone: attempt('@rea/provider-capstone'), absent: attempt('@example/absent') }));
`,
    );
    const result = await build({ ...BUNDLE, entryPoints: [entry], outdir: join(work, 'out') });
    const [file] = result.outputFiles as OutputFile[];
    writeFileSync(join(work, 'out.mjs'), file!.text);
    const answer = JSON.parse(execFileSync(process.execPath, [join(work, 'out.mjs')], { encoding: 'utf8' })) as Record<
      string,
      string
    >;
    const expected = manifests();
    // A package the bundle does not state is looked up as outside a bundle (and is not found here).
    expect(answer).toEqual({
      artifact: expected['@rea/artifact'],
      capstone: expected['@rea/provider-capstone'],
      absent: 'MODULE_NOT_FOUND',
    });
  });

  it("should be defined in the command line's script, with nothing left to look up", () => {
    const script = readFileSync(join(packages, 'rea', 'dist', 'cli.cjs'), 'latin1');
    expect(script).not.toContain('__REA_BUNDLED_VERSIONS__');
    for (const [name, version] of Object.entries(manifests()))
      expect(script).toContain(`${JSON.stringify(name)}:${JSON.stringify(version)}`);
  });
});
