import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface WorkspacePackage {
  dir: string;
  relDir: string;
  manifest: Record<string, unknown>;
}
interface Workspace {
  listPackages(): WorkspacePackage[];
  sourceEntries(pkg: WorkspacePackage): Array<{ specifier: string; source: string }>;
}
// The same discovery the build, jest and the pack check use: a new package is pinned without a change here.
const workspace = (await import(pathToFileURL(join(root, 'tools', 'workspace.mjs')).href)) as Workspace;
const published = workspace.listPackages().filter((pkg) => pkg.manifest['private'] !== true);

/** What a package publishes: its export subpaths, its bins, and each entry's value and type names. */
interface Surface {
  exports: string[];
  bin: Record<string, string>;
  entries: Record<string, { values: string[]; types: string[] }>;
}

/**
 * The type names an entry module exports (`export type { … }`, `export interface`, `export type X =`,
 * and those of a module it re-exports whole with `export * from './…'`).
 */
function typeNames(source: string): string[] {
  const text = readFileSync(source, 'utf8');
  const names = new Set<string>();
  for (const [, from] of text.matchAll(/^export \* from '(\.[^']+)\.js';/gm)) {
    for (const name of typeNames(join(dirname(source), `${from}.ts`))) names.add(name);
  }
  for (const [, list] of text.matchAll(/export type \{([^}]*)\}/g)) {
    for (const item of list!.split(',')) {
      const name = item
        .trim()
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.add(name);
    }
  }
  for (const [, name] of text.matchAll(/^export (?:interface|type) (\w+)/gm)) names.add(name!);
  return [...names].sort();
}

async function surfaceOf(pkg: WorkspacePackage): Promise<Surface> {
  const manifest = pkg.manifest;
  const bin = manifest['bin'];
  const entries: Surface['entries'] = {};
  for (const { specifier, source } of workspace.sourceEntries(pkg)) {
    const subpath = specifier === manifest['name'] ? '.' : `./${specifier.slice(String(manifest['name']).length + 1)}`;
    const module = (await import(specifier)) as Record<string, unknown>;
    entries[subpath] = { values: Object.keys(module).sort(), types: typeNames(source) };
  }
  return {
    exports: Object.keys((manifest['exports'] as object | undefined) ?? {}).sort(),
    bin: typeof bin === 'string' ? { [String(manifest['name'])]: bin } : ((bin as Record<string, string>) ?? {}),
    entries,
  };
}

/**
 * Every published package pins its surface in `test/surface.pin.json`. A change to it is a change to
 * what users install: update the pin deliberately, together with a changeset. `REA_UPDATE_PINS=1`
 * rewrites the pins from the code (then review the diff) instead of comparing.
 */
describe('published surface', () => {
  it('should find the published packages of the workspace', () => {
    expect(published.map((pkg) => pkg.manifest['name'])).toEqual(
      expect.arrayContaining(['@rea/evidence', '@rea/provider-kit', '@rea/server']),
    );
  });

  it.each(published.map((pkg) => [pkg.manifest['name'] as string, pkg] as const))(
    'should match the pinned exports, bins and entry names of %s',
    async (_name, pkg) => {
      const pin = join(pkg.dir, 'test', 'surface.pin.json');
      const actual = await surfaceOf(pkg);
      if (process.env['REA_UPDATE_PINS'] === '1') writeFileSync(pin, `${JSON.stringify(actual, null, 2)}\n`);
      if (!existsSync(pin)) {
        throw new Error(
          `${relative(root, pin)} is missing. Pin the package's published surface by writing it with:\n` +
            `${JSON.stringify(actual, null, 2)}`,
        );
      }
      expect(actual).toEqual(JSON.parse(readFileSync(pin, 'utf8')));
    },
  );

  it('should give every published package the required manifest fields', () => {
    for (const { manifest: m } of published) {
      expect({ name: m['name'], type: m['type'], sideEffects: m['sideEffects'] }).toEqual({
        name: m['name'],
        type: 'module',
        sideEffects: false,
      });
      // dist, and at most top-level documents such as an agent skill, and `scripts` (the bridge
      // scripts an external engine runs, which are not compiled into dist).
      const files = m['files'] as string[];
      expect(files[0]).toBe('dist');
      for (const file of files.slice(1)) expect(file).toMatch(/^([A-Z][A-Z_-]*\.md|scripts)$/);
      expect((m['engines'] as Record<string, string>)['node']).toBe('>=20.19');
      expect((m['repository'] as Record<string, string>)['directory']).toMatch(/^packages\//);
      expect((m['publishConfig'] as Record<string, string>)['access']).toBe('public');
      const dot = (m['exports'] as Record<string, Record<string, string>>)['.']!;
      expect(Object.keys(dot)[0]).toBe('types');
    }
  });
});
