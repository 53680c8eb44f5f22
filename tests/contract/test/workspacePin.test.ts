import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function manifests(): Array<Record<string, unknown>> {
  const dirs = ['packages', 'packages/providers', 'tests', '.'];
  const out: Array<Record<string, unknown>> = [];
  for (const base of dirs) {
    const abs = join(root, base);
    if (!existsSync(abs)) continue;
    const candidates =
      base === '.'
        ? ['bench']
        : readdirSync(abs, { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => e.name);
    for (const name of candidates) {
      const file = join(abs, name, 'package.json');
      if (existsSync(file)) out.push(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
    }
  }
  return out;
}

/**
 * The published surface of the workspace. A change here is a change to what users install: update
 * this list deliberately, together with a changeset.
 */
const PINNED = [
  { name: '@rea/artifact', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/bench', private: true, exports: [], bin: {} },
  { name: '@rea/cli', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/contract-tests', private: true, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/evidence', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/javascript', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/native', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/provider-capstone', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/provider-kit', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/schema', private: false, exports: ['.', './package.json'], bin: {} },
  { name: '@rea/server', private: false, exports: ['.', './calls', './package.json', './serve'], bin: {} },
  { name: '@rea/test-helpers', private: true, exports: ['.', './package.json'], bin: {} },
  { name: 'rea-mcp', private: false, exports: ['.', './package.json'], bin: { rea: './dist/bin.js' } },
];

describe('workspace surface', () => {
  it('should list exactly the pinned packages with their exports and bins', () => {
    const actual = manifests()
      .map((m) => ({
        name: m['name'] as string,
        private: m['private'] === true,
        exports: Object.keys((m['exports'] as object | undefined) ?? {}).sort(),
        bin:
          typeof m['bin'] === 'string' ? { [m['name'] as string]: m['bin'] } : ((m['bin'] as object | undefined) ?? {}),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(actual).toEqual(PINNED);
  });

  it('should give every public package the required manifest fields', () => {
    for (const m of manifests().filter((x) => x['private'] !== true)) {
      expect({ name: m['name'], type: m['type'], sideEffects: m['sideEffects'], files: m['files'] }).toEqual({
        name: m['name'],
        type: 'module',
        sideEffects: false,
        files: ['dist'],
      });
      expect((m['engines'] as Record<string, string>)['node']).toBe('>=20.19');
      expect((m['repository'] as Record<string, string>)['directory']).toMatch(/^packages\//);
      expect((m['publishConfig'] as Record<string, string>)['access']).toBe('public');
      const dot = (m['exports'] as Record<string, Record<string, string>>)['.']!;
      expect(Object.keys(dot)[0]).toBe('types');
    }
  });
});
